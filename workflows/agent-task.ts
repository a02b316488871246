import {
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  ChildWorkflowFailure,
  executeChild,
  patched,
  proxyActivities,
  TerminatedFailure,
  TimeoutFailure,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Cost, StopReason } from '../common/schemas/completions';
import { completionSearchAttributes } from '../common/search-attributes';
import { AGENT_TASK_REJECTED, type AgentTaskInput } from '../common/inbound-event';
import { type CompletionOutcome, completionWorkflow } from './completion';
import { ownTimeBoundReached } from './own-time-bound';

export interface AgentTaskOutcome {
  session_id: string;
  trace_id: string;
  answer: string;
  /** `canceled`: the run was cancelled (POST …/cancel); `answer` and `cost` are what it had by then. */
  stop_reason: StopReason;
  cost: Cost;
}

const { prepareAgentTask } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10, nonRetryableErrorTypes: [AGENT_TASK_REJECTED] },
});
const { failAgentTask, canceledAgentTaskRun } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/** Patch id of the task's own time bounds: its preparation's timer, its completion's backstop. */
const TASK_TIME_BOUND = 'agent-task-time-bound';
/** Preparation is a few reads and writes; past this its retries are cut short. */
export const PREPARE_BOUND_MS = 120_000;
/** How long past its own time bound the task's completion may live before Temporal ends it without its record. */
export const COMPLETION_BACKSTOP_MARGIN_MS = 120_000;
const AGENT_TASK_TIMED_OUT = 'AgentTaskTimedOut';
/** Patch id of ending a task whose run was cancelled as completed, not failed. */
const RUN_CANCELED = 'agent-task-run-canceled';

/**
 * The memo key of an agent task whose run was cancelled: the task completes (a person stopping its
 * run is no failure of it), and `run_status: canceled` tells it from a run that answered.
 */
export const RUN_STATUS_MEMO = 'run_status';

/** The child completion ended without recording its end itself: Temporal's backstop, or a person, ended it. */
const endedUnrecorded = (err: unknown) =>
  err instanceof ChildWorkflowFailure && (err.cause instanceof TimeoutFailure || err.cause instanceof TerminatedFailure);

/**
 * The child completion alone was cancelled (POST …/cancel): it has recorded its run as `canceled`.
 * When the task itself is cancelled (the Temporal UI), its child is too, and the task ends cancelled.
 */
const runCanceledAlone = (err: unknown) =>
  err instanceof ChildWorkflowFailure && err.cause instanceof CancelledFailure && !CancellationScope.current().consideredCancelled;

/**
 * One agent task, started by an event trigger or a cron job: opens the task's session from its
 * template (ids derived from this workflow's id, so a retry reuses them) and runs the completion
 * as a child workflow, which records the answer and the events (`session.finished`,
 * `review.completed`, `import.completed`) as any completion does. The task is bounded: its
 * preparation by PREPARE_BOUND_MS, its completion by the completion's own time bound; a task ended
 * by either fails (`AgentTaskTimedOut`) with its run recorded as failed. A task whose run was cancelled completes with
 * `stop_reason: canceled` and the memo `run_status: canceled`.
 */
export async function agentTaskWorkflow(input: AgentTaskInput): Promise<AgentTaskOutcome> {
  const { workflowId, startTime } = workflowInfo();
  // Runs started before the bounds existed have neither timer nor backstop in their history.
  const bounded = patched(TASK_TIME_BOUND);
  const timedOut = async (message: string) => {
    await failAgentTask({ workflowId, message, startedAt: startTime.getTime() });
    return ApplicationFailure.create({ message, type: AGENT_TASK_TIMED_OUT, nonRetryable: true });
  };
  const prepare = () => prepareAgentTask({ task: input, workflowId });
  let prepared;
  try {
    prepared = bounded ? await CancellationScope.withTimeout(PREPARE_BOUND_MS, prepare) : await prepare();
  } catch (err) {
    if (bounded && ownTimeBoundReached(err)) {
      throw await timedOut(`the agent task's preparation did not finish within its time bound (${PREPARE_BOUND_MS} ms)`);
    }
    throw err;
  }
  const { completion, completionWorkflowId } = prepared;
  const runBound = completion.limits.runTimeoutMs;
  // The completion ends at its own time bound (COMPLETION_RUN_TIMEOUT_MS), recording why; this is the backstop.
  const backstop = bounded && runBound !== undefined ? { workflowExecutionTimeout: runBound + COMPLETION_BACKSTOP_MARGIN_MS } : {};
  const childOptions = {
    workflowId: completionWorkflowId,
    args: [completion] satisfies Parameters<typeof completionWorkflow>,
    ...backstop,
    typedSearchAttributes: completionSearchAttributes(completion),
    memo: { route: completion.route.text, question: completion.question.slice(0, 200), origin: input.origin },
  };
  let outcome: CompletionOutcome;
  try {
    outcome = await executeChild(completionWorkflow, childOptions);
  } catch (err) {
    if (bounded && endedUnrecorded(err))
      throw await timedOut(
        `the agent task's completion was ended without recording its outcome (${(err as ChildWorkflowFailure).cause?.message ?? 'ended'})`,
      );
    // Runs started before the patch failed here: a cancelled run failed its task.
    if (runCanceledAlone(err) && patched(RUN_CANCELED)) {
      upsertMemo({ [RUN_STATUS_MEMO]: 'canceled' });
      const { answer, cost } = await canceledAgentTaskRun({ tenantId: input.tenantId, traceId: completion.traceId });
      return { session_id: completion.sessionId, trace_id: completion.traceId, answer, stop_reason: 'canceled', cost };
    }
    throw err;
  }
  return {
    session_id: completion.sessionId,
    trace_id: completion.traceId,
    answer: outcome.answer,
    stop_reason: outcome.stopReason,
    cost: outcome.cost,
  };
}
