import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { StopReason } from '../common/schemas/completions';
import { AgentId, SessionId, TenantId, TraceId } from '../common/search-attributes';
import { AGENT_TASK_REJECTED, type AgentTaskInput } from '../triggers/inbound-event';
import { completionWorkflow } from './completion';

export interface AgentTaskOutcome {
  session_id: string;
  trace_id: string;
  answer: string;
  stop_reason: StopReason;
  cost: { tokens: number; duration_ms: number };
}

const { prepareAgentTask } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10, nonRetryableErrorTypes: [AGENT_TASK_REJECTED] },
});

/**
 * One agent task, started by an event trigger or a cron job: opens the task's session from its
 * template (ids derived from this workflow's id, so a retry reuses them) and runs the completion
 * as a child workflow, which records the answer and the events (`session.finished`,
 * `review.completed`, `import.completed`) as any completion does.
 */
export async function agentTaskWorkflow(input: AgentTaskInput): Promise<AgentTaskOutcome> {
  const { completion, completionWorkflowId } = await prepareAgentTask({ task: input, workflowId: workflowInfo().workflowId });
  const outcome = await executeChild(completionWorkflow, {
    workflowId: completionWorkflowId,
    args: [completion],
    typedSearchAttributes: [
      { key: TenantId, value: completion.tenantId },
      { key: AgentId, value: completion.agentId },
      { key: SessionId, value: completion.sessionId },
      { key: TraceId, value: completion.traceId },
    ],
    memo: { route: completion.route.text, question: completion.question.slice(0, 200), origin: input.origin },
  });
  return {
    session_id: completion.sessionId,
    trace_id: completion.traceId,
    answer: outcome.answer,
    stop_reason: outcome.stopReason,
    cost: outcome.cost,
  };
}
