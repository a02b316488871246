import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { completionWorkflowId, sessionRunsWorkflowId } from '../common/workflow-ids';
import { turnReleased } from '../workflows/session-runs';

/** How a run's workflow stands for a session waiting on it: running, closed however it ended, or unknown to Temporal. */
type RunWorkflowState = 'running' | 'closed' | 'missing';

/**
 * What the worker's activities learn of, and tell about, runs that take their session's turn
 * without the session's workflow (workflow code cannot watch a workflow that is not its child).
 */
export function createRunWatch(temporal: Client) {
  return {
    /** Whether the run's workflow is running now ('closed' however it ended, 'missing' when Temporal has none). */
    async state(traceId: string): Promise<RunWorkflowState> {
      try {
        const { status } = await temporal.workflow.getHandle(completionWorkflowId(traceId)).describe();
        return status.name === 'RUNNING' ? 'running' : 'closed';
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return 'missing';
        throw err;
      }
    },

    /** Tells the session's workflow, if it has one, that the run gave the session's turn back. */
    async released(sessionId: string, traceId: string): Promise<void> {
      try {
        await temporal.workflow.getHandle(sessionRunsWorkflowId(sessionId)).signal(turnReleased, traceId);
      } catch (err) {
        // No session workflow (the usual case: nobody waits) or one that has closed.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
