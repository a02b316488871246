import {
  type Client,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { AppError, conflict, ErrorCodes, notFound } from '../common/errors';
import type { ApprovalDecision, ApprovalDecisionBody, CompletionRun, ToolApproval } from '../common/schemas/completions';
import type { Role } from '../common/schemas/api-keys';
import { type CompletionRunStore, ENDED_STATUSES } from '../stores/completion-runs';
import { boundedCalls } from './temporal-waits';
import { APPROVAL_DECIDED, APPROVAL_UNKNOWN, type ApprovalDecisionResult, decideApproval } from '../workflows/tool-approval';

export interface ApprovalCommandDeps {
  temporal: Client;
  completionRuns: CompletionRunStore;
}

/** How long a decision waits for the run's worker to take it before the caller is told to ask again. */
const DECISION_WAIT_MS = 15_000;

const approvalOf = (run: CompletionRun, approvalId: string): ToolApproval => {
  const approval = run.approvals.find((a) => a.approval_id === approvalId);
  if (!approval) throw notFound('approval', approvalId);
  return approval;
};

const refuseDecided = (approval: Pick<ToolApproval, 'approval_id' | 'status'>) =>
  conflict(`approval ${approval.approval_id} is already ${approval.status}; it cannot be decided otherwise`, {
    approval_id: approval.approval_id,
    status: approval.status,
  });

/** Under separate duties: the run's requester may not decide its tool calls; on a run no person asked for, only an admin may. */
function checkSeparateDuties(
  requestedBy: string | null,
  decider: { ownerId: string; role: Role },
  traceId: string,
  approvalId: string,
): void {
  if (requestedBy === null && decider.role !== 'admin')
    throw new AppError(
      ErrorCodes.FORBIDDEN,
      `separation of duties: run ${traceId} was started by a trigger or cron job, so only an admin may decide its tool calls`,
      { approval_id: approvalId, requested_by: null },
    );
  if (requestedBy !== null && requestedBy === decider.ownerId)
    throw new AppError(
      ErrorCodes.FORBIDDEN,
      `separation of duties: ${decider.ownerId} asked for run ${traceId} and may not decide its tool calls; another member or admin must`,
      { approval_id: approvalId, requested_by: requestedBy },
    );
}

/**
 * A person's decisions on tool calls waiting for approval. The decision is a Temporal update of the
 * run's workflow: the reply says whether it was applied, and it is in the workflow's history (so it
 * survives worker restarts) before the reply is sent. Any API process can take it.
 */
export function createApprovalCommands({ temporal, completionRuns }: ApprovalCommandDeps) {
  async function sendDecision(
    tenantId: string,
    run: CompletionRun,
    approvalId: string,
    body: ApprovalDecisionBody,
    decidedBy: string,
    signal: AbortSignal | undefined,
  ) {
    const handle = temporal.workflow.getHandle(run.workflow_id);
    try {
      // The update's call ends at the deadline or when the caller leaves; the decision, once the
      // server holds it, still applies when a worker polls again.
      return await boundedCalls(temporal, { signal, deadline: Date.now() + DECISION_WAIT_MS }, () =>
        // One update id per (approval, decision, caller): the caller's repeat after a 503 attaches to
        // its first attempt; another caller's decision is a decision of its own.
        handle.executeUpdate(decideApproval, {
          updateId: `${approvalId}:${body.decision}:${decidedBy}`,
          args: [{ approvalId, decision: body.decision, comment: body.comment, decidedBy }],
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || signal?.aborted)
        throw new AppError(
          ErrorCodes.INTERNAL,
          `the run's worker did not take the decision within ${DECISION_WAIT_MS / 1000} s; it may still apply when a worker polls again: send the same decision again to learn the outcome`,
          { trace_id: run.trace_id, approval_id: approvalId },
          503,
        );
      throw await refusalOf(err, tenantId, run.trace_id, approvalId);
    }
  }

  /** What a refused update means to the caller. */
  async function refusalOf(err: unknown, tenantId: string, traceId: string, approvalId: string): Promise<unknown> {
    if (err instanceof AppError) return err;
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === APPROVAL_UNKNOWN) return notFound('approval', approvalId);
    if (cause instanceof ApplicationFailure && cause.type === APPROVAL_DECIDED)
      return refuseDecided({ approval_id: approvalId, status: cause.details?.[0] as ToolApproval['status'] });
    // The run ended meanwhile (its workflow closed before the update reached it, or cancelled it).
    const now = await completionRuns.get(tenantId, traceId);
    const ended = err instanceof WorkflowNotFoundError || cause instanceof CancelledFailure || ENDED_STATUSES.includes(now.status);
    return ended
      ? refuseDecided({
          approval_id: approvalId,
          status: ENDED_STATUSES.includes(now.status) ? approvalOf(now, approvalId).status : 'canceled',
        })
      : err;
  }

  return {
    /**
     * Decides a waiting tool call. A repeat of the decision made (a retried request) answers
     * `applied: false`; another decision, or one on an approval that timed out or whose run ended,
     * is 10005; an approval the run does not have is 10004. Under separate duties the run's
     * requester (`decider.ownerId` the same as the run's `requested_by`) is refused with 10003, and
     * so is a member on a run no person asked for (a trigger's or a cron job's, which a member may
     * have set up): only an admin decides those.
     */
    async decide(
      tenantId: string,
      traceId: string,
      approvalId: string,
      body: ApprovalDecisionBody,
      decider: { label: string; ownerId: string; role: Role },
      signal?: AbortSignal,
    ): Promise<ApprovalDecision> {
      const [run, guard] = await Promise.all([completionRuns.get(tenantId, traceId), completionRuns.approvalGuard(tenantId, traceId)]);
      const approval = approvalOf(run, approvalId);
      if (guard.separateDuties) checkSeparateDuties(guard.requestedBy, decider, traceId, approvalId);
      const wanted = body.decision === 'approve' ? 'approved' : 'rejected';
      if (approval.status === wanted) return { trace_id: traceId, approval, applied: false };
      if (approval.status !== 'pending') throw refuseDecided(approval);
      const result: ApprovalDecisionResult = await sendDecision(tenantId, run, approvalId, body, decider.label, signal);
      const after = approvalOf(await completionRuns.get(tenantId, traceId), approvalId);
      return { trace_id: traceId, approval: after, applied: result.applied };
    },
  };
}
