import { type Client, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { completionWorkflowId } from '../common/workflow-ids';
import { boundedCalls, isPassingTemporalError } from './temporal-waits';

/** How a run's workflow stands for a session waiting on it: closed however it ended, or unknown to Temporal. */
export type RunWorkflowState = 'closed' | 'missing';

/**
 * What a session's workflow learns of a run that took the session's turn without it (an activity
 * of the worker waits on it: workflow code cannot wait for a workflow that is not its child).
 */
export function createRunWatch(temporal: Client) {
  return {
    /** Whether the run's workflow is running now ('closed' however it ended, 'missing' when Temporal has none). */
    async state(traceId: string): Promise<RunWorkflowState | 'running'> {
      try {
        const { status } = await temporal.workflow.getHandle(completionWorkflowId(traceId)).describe();
        return status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return 'missing';
        throw err;
      }
    },

    /**
     * Settles once the run's workflow has closed (answered, failed, cancelled, terminated, timed
     * out), or at once with 'missing' when Temporal has none (not started yet, or never will be).
     * Rejects when `signal` aborts, and on any other error (the activity tries again).
     */
    async closed(traceId: string, signal: AbortSignal): Promise<RunWorkflowState> {
      const handle = temporal.workflow.getHandle(completionWorkflowId(traceId));
      try {
        await boundedCalls(temporal, { signal, deadline: Number.POSITIVE_INFINITY }, () => handle.result());
        return 'closed';
      } catch (err) {
        if (signal.aborted || isPassingTemporalError(err)) throw err;
        if (err instanceof WorkflowNotFoundError) return 'missing';
        // Failed, cancelled, terminated or timed out: closed all the same.
        if (err instanceof WorkflowFailedError) return 'closed';
        throw err;
      }
    },
  };
}
