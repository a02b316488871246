import {
  type Client, type ScheduleExecutionResult, ScheduleNotFoundError, ScheduleOverlapPolicy, type WorkflowExecutionStatusName,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { conflict, invalid } from '../common/errors';
import type { CronRun, OverlapPolicy } from '../common/schemas/cron';
import { AgentId, CronId, TenantId } from '../common/search-attributes';
import { AGENT_TASK_BACKSTOP_MS } from '../common/workflow-starts';
import type { CronJobDoc } from '../stores/cron-jobs';
import { agentTaskWorkflow } from '../workflows/agent-task';
import type { AgentTaskInput } from './inbound-event';

/**
 * A cron job is a Temporal Schedule whose action starts one agent task per due time. Temporal owns
 * the timing (time zone, catch-up after an outage, overlap); this module maps a job onto it and
 * reads its state back.
 */
export const cronScheduleId = (cronId: string) => `cron-${cronId}`;
/** Temporal appends each run's due time (`cron-task-crn_…-2026-11-23T09:00:00Z`), so every run has its own id. */
export const cronTaskWorkflowIdPrefix = (cronId: string) => `cron-task-${cronId}`;

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

/** A run missed by more than this (server down, say) is skipped, not started late. */
const CATCHUP_WINDOW = '1 minute';
const NEXT_RUNS_SHOWN = 5;

/** The schedule's arguments are fixed; the workflow id already tells one run from another, hence a constant key. */
export function cronTaskInput(job: CronJobDoc): AgentTaskInput {
  return {
    tenantId: job.tenant_id,
    origin: `cron:${job._id}`,
    key: 'scheduled',
    agentId: job.agent_id,
    sessionTemplate: job.session_template,
    inputs: job.inputs,
    question: job.question,
    event: null,
  };
}

const searchAttributes = (job: CronJobDoc) => [
  { key: TenantId, value: job.tenant_id },
  { key: AgentId, value: job.agent_id },
  { key: CronId, value: job._id },
];

/** Creates the job's schedule; Temporal's refusal of the spec is a 10001 on the field it concerns. */
export async function createCronSchedule(client: Client, taskQueue: string, job: CronJobDoc): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: cronScheduleId(job._id),
      spec: { cronExpressions: [job.cron], timezone: job.timezone },
      action: {
        type: 'startWorkflow',
        workflowType: agentTaskWorkflow,
        workflowId: cronTaskWorkflowIdPrefix(job._id),
        taskQueue,
        args: [cronTaskInput(job)],
        workflowExecutionTimeout: AGENT_TASK_BACKSTOP_MS,
        typedSearchAttributes: searchAttributes(job),
      },
      policies: { overlap: OVERLAP[job.overlap], catchupWindow: CATCHUP_WINDOW },
      state: { paused: job.paused },
      memo: { name: job.name },
      typedSearchAttributes: searchAttributes(job),
    });
  } catch (err) {
    // The SDK turns the server's "Invalid schedule spec" (INVALID_ARGUMENT) into a TypeError.
    if (err instanceof TypeError) {
      const field = /time ?zone/i.test(err.message) ? 'body.timezone' : 'body.cron';
      throw invalid(`${field}: ${err.message}`, { field });
    }
    throw err;
  }
}

/** Deletes the job's schedule; one already gone is fine. */
export async function deleteCronSchedule(client: Client, cronId: string): Promise<void> {
  try {
    await client.schedule.getHandle(cronScheduleId(cronId)).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
}

const missingSchedule = (cronId: string) =>
  conflict(`the schedule of cron job ${cronId} no longer exists in Temporal; delete the job and create it again`, { cron_id: cronId });

/** Pauses or resumes the job's runs. */
export async function setCronSchedulePaused(client: Client, cronId: string, paused: boolean): Promise<void> {
  const handle = client.schedule.getHandle(cronScheduleId(cronId));
  try {
    await (paused ? handle.pause('paused through the API') : handle.unpause('unpaused through the API'));
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw missingSchedule(cronId);
    throw err;
  }
}

/** Starts a run now, under the job's overlap policy (with `skip`, nothing starts while a run is going). */
export async function triggerCronSchedule(client: Client, cronId: string, overlap: OverlapPolicy): Promise<void> {
  try {
    await client.schedule.getHandle(cronScheduleId(cronId)).trigger(OVERLAP[overlap]);
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw missingSchedule(cronId);
    throw err;
  }
}

export interface CronScheduleState {
  paused: boolean;
  nextRunTimes: string[];
  recentRuns: CronRun[];
}

const RUN_STATUS: Partial<Record<WorkflowExecutionStatusName, NonNullable<CronRun['status']>>> = {
  RUNNING: 'running',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

async function runStatus(client: Client, run: ScheduleExecutionResult): Promise<CronRun['status']> {
  const { workflowId, firstExecutionRunId } = run.action.workflow;
  try {
    const described = await client.workflow.getHandle(workflowId, firstExecutionRunId).describe();
    return RUN_STATUS[described.status.name] ?? null;
  } catch (err) {
    // Past the namespace's retention the run is forgotten.
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

/**
 * The schedule's live state, or null when it no longer exists. With `runStatuses`, each recent
 * run's status is read (one call per run); otherwise only running ones are known.
 */
export async function readCronSchedule(client: Client, cronId: string, { runStatuses }: { runStatuses: boolean }): Promise<CronScheduleState | null> {
  let described;
  try {
    described = await client.schedule.getHandle(cronScheduleId(cronId)).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return null;
    throw err;
  }
  const running = new Set(described.info.runningActions.map((a) => a.workflow.firstExecutionRunId));
  const recent = described.info.recentActions;
  const statuses = runStatuses
    ? await Promise.all(recent.map((run) => runStatus(client, run)))
    : recent.map((run) => (running.has(run.action.workflow.firstExecutionRunId) ? ('running' as const) : null));
  const paused = described.state.paused;
  return {
    paused,
    // Temporal lists due times even while paused; none of them will run then.
    nextRunTimes: paused ? [] : described.info.nextActionTimes.slice(0, NEXT_RUNS_SHOWN).map((t) => t.toISOString()),
    recentRuns: recent.map((run, i) => ({
      workflow_id: run.action.workflow.workflowId,
      run_id: run.action.workflow.firstExecutionRunId,
      scheduled_at: run.scheduledAt.toISOString(),
      started_at: run.takenAt.toISOString(),
      status: statuses[i] ?? null,
    })),
  };
}
