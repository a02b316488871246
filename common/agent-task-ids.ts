import { createHash } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * One workflow id per (trigger, event id): the server refuses a second start of the same id, so
 * however often an event is delivered (sender retries, several API processes) it starts one task.
 */
export const agentTaskWorkflowId = (triggerId: string, eventId: string) =>
  `agent-task-${triggerId}-${createHash('sha256').update(eventId).digest('hex').slice(0, 24)}`;

/**
 * An agent task's ids come from its workflow id, so a retried preparation reuses them, and a cron
 * job's recent run (which Temporal knows by workflow id) names its completion run.
 */
export const agentTaskSessionId = (workflowId: string) => `ses_${digest(`session:${workflowId}`)}`;
export const agentTaskTraceId = (workflowId: string) => `trc_${digest(`trace:${workflowId}`)}`;
