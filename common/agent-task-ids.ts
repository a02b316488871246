import { createHash } from 'node:crypto';

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * An agent task's ids come from its workflow id, so a retried preparation reuses them, and a cron
 * job's recent run (which Temporal knows by workflow id) names its completion run.
 */
export const agentTaskSessionId = (workflowId: string) => `ses_${digest(`session:${workflowId}`)}`;
export const agentTaskTraceId = (workflowId: string) => `trc_${digest(`trace:${workflowId}`)}`;
