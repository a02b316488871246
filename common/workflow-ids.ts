/*
 * Every workflow's and schedule's id: what an operator finds in the Temporal UI. Pure string
 * functions, here so that commands/ (starting workflows), activities/ (recording a run's workflow id)
 * and workflows/ (starting children) share them. An agent task's workflow id is a digest
 * (node:crypto, which the workflow bundle refuses): it is in common/agent-task-ids.ts with the task's
 * other ids.
 */

/** One workflow per run, by its trace id; an agent task's completion too. */
export const completionWorkflowId = (traceId: string) => `completion-${traceId}`;
/** The workflow that runs a session's API completions one at a time (workflows/session-runs.ts). */
export const sessionRunsWorkflowId = (sessionId: string) => `session-runs-${sessionId}`;
/** Who holds a session's turn (stores/session-turns.ts) when its session workflow does, not a run. */
export const SESSION_WORKFLOW_HOLDER = 'session-workflow';
/**
 * One workflow per parse of a document: the upload's is `document-ingest-<doc_id>` (as before
 * reparses existed), the n-th parse's `document-ingest-<doc_id>-<n>`, so a reparse never collides
 * with an earlier parse's id (REJECT_DUPLICATE: a parse id is never reused).
 */
export const ingestWorkflowId = (docId: string, parse = 1) =>
  parse === 1 ? `document-ingest-${docId}` : `document-ingest-${docId}-${parse}`;
export const replayWorkflowId = (replayId: string) => `webhook-replay-${replayId}`;
export const cronScheduleId = (cronId: string) => `cron-${cronId}`;
/** Temporal appends each run's due time (`cron-task-crn_…-2026-11-23T09:00:00Z`), so every run has its own id. */
export const cronTaskWorkflowIdPrefix = (cronId: string) => `cron-task-${cronId}`;
export const MAINTENANCE_SCHEDULE_ID = 'combo-maintenance';
/** The maintenance schedule's runs: Temporal appends each run's due time, as for a cron job's. */
export const MAINTENANCE_RUN_WORKFLOW_ID_PREFIX = 'combo-maintenance-run';
