import {
  ApplicationFailure,
  CancellationScope,
  condition,
  defineUpdate,
  patched,
  proxyLocalActivities,
  setHandler,
  uuid4,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RunContext } from '../completion/run-input';
import { readToolArguments } from '../completion/tool-arguments';
import type { ToolCall } from '../common/chat-model';

export interface ApprovalDecisionInput {
  approvalId: string;
  decision: 'approve' | 'reject';
  comment?: string;
  /** `api_key:<id>` or `user:<console user>`. */
  decidedBy: string;
}

export interface ApprovalDecisionResult {
  /** false: the approval had been decided the same way before (a repeated request). */
  applied: boolean;
  status: 'approved' | 'rejected';
}

/**
 * A person's decision on a waiting tool call. An update, so the caller learns whether it was
 * applied; its validator refuses an unknown approval and a decision contrary to the one made.
 */
export const decideApproval = defineUpdate<ApprovalDecisionResult, [ApprovalDecisionInput]>('decideApproval');

/** Failure types of a refused decision: no such approval in the run / decided otherwise (or timed out). */
export const APPROVAL_UNKNOWN = 'ApprovalUnknown';
export const APPROVAL_DECIDED = 'ApprovalDecided';

export interface Verdict {
  status: 'approved' | 'rejected' | 'timed_out';
  comment: string | null;
  decidedBy: string | null;
  decidedAt: number;
}

const { requestApprovals, recordApprovalDecision } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/** Patch id of holding tool calls for approval (runs started before it never held one). */
const TOOL_APPROVAL = 'completion-tool-approval';

const statusOf = (decision: ApprovalDecisionInput['decision']) => (decision === 'approve' ? 'approved' : 'rejected');

/** What the model reads instead of a result for a call that did not run. */
export function refusedToolResult(verdict: Verdict, timeoutMs: number): string {
  return JSON.stringify(
    verdict.status === 'timed_out'
      ? { error: `the tool did not run: nobody approved the call within ${Math.round(timeoutMs / 1000)} s` }
      : { error: 'the tool did not run: a person rejected the call', ...(verdict.comment ? { comment: verdict.comment } : {}) },
  );
}

/**
 * The approval gate of one run: registers the decision handler at once (a decision may come at any
 * point of the run's life), and `review` holds a step's tool calls that need approval until each
 * is decided or the wait ends (a durable timer: it counts as rejected). Decisions are recorded one
 * at a time, in the run's own order, so the stream's numbering stays gapless.
 */
export function createApprovalGate(settings: { tools: string[]; timeoutMs: number } | undefined) {
  const asked = new Set<string>();
  const verdicts = new Map<string, Verdict>();
  const recorded = new Set<string>();
  /** Approvals whose wait ended before their decision was recorded (the run was cancelled or failed). */
  const abandoned = new Set<string>();
  let closed = false;
  const settled = (approvalId: string) => recorded.has(approvalId) || abandoned.has(approvalId) || closed;
  const refusal = (approvalId: string, status: string) =>
    ApplicationFailure.create({
      type: APPROVAL_DECIDED,
      message: `approval ${approvalId} is already ${status}`,
      nonRetryable: true,
      details: [status],
    });

  setHandler(
    decideApproval,
    async ({ approvalId, decision, comment, decidedBy }) => {
      const earlier = verdicts.get(approvalId);
      if (!earlier) verdicts.set(approvalId, { status: statusOf(decision), comment: comment ?? null, decidedBy, decidedAt: Date.now() });
      // Answered once recorded (a repeat too), so that the run read right after the reply shows the
      // decision; a cancel of the run must not cut this wait short, only settle it.
      await CancellationScope.nonCancellable(() => condition(() => settled(approvalId)));
      if (!recorded.has(approvalId)) throw refusal(approvalId, 'canceled');
      return { applied: !earlier, status: statusOf(decision) };
    },
    {
      validator: ({ approvalId, decision }: ApprovalDecisionInput) => {
        if (!asked.has(approvalId))
          throw ApplicationFailure.create({ type: APPROVAL_UNKNOWN, message: `no approval ${approvalId} in this run`, nonRetryable: true });
        const earlier = verdicts.get(approvalId);
        if (earlier && earlier.status !== statusOf(decision)) throw refusal(approvalId, earlier.status);
        if (!earlier && (abandoned.has(approvalId) || closed)) throw refusal(approvalId, 'canceled');
      },
    },
  );

  return {
    /** The run has ended: decision handlers still waiting for their record answer now. */
    close(): void {
      closed = true;
    },

    /**
     * Holds the calls that need approval until decided, at most `maxWaitMs` beyond the gate's own
     * timeout; answers the verdicts by tool call id (calls without one run as usual) and the next
     * stream event number.
     */
    async review(ctx: RunContext, seq: number, step: number, calls: ToolCall[], maxWaitMs: number) {
      const byCall = new Map<string, Verdict>();
      // A call whose arguments are not an object does not run anyway: the tool answers the model so.
      const held = settings
        ? calls.flatMap((call) => {
            const read = readToolArguments(call.arguments);
            return settings.tools.includes(call.name) && 'args' in read ? [{ call, args: read.args }] : [];
          })
        : [];
      if (!settings || held.length === 0 || !patched(TOOL_APPROVAL)) return { seq, verdicts: byCall, waitMs: 0 };
      const waitMs = Math.max(0, Math.min(settings.timeoutMs, maxWaitMs));
      const asks = held.map(({ call, args }) => ({ call, args, approvalId: `apr_${uuid4().replace(/-/g, '')}` }));
      const requestedAt = Date.now();
      const deadline = requestedAt + waitMs;
      // Known before they are recorded: a decision may follow the record before this activity returns.
      for (const a of asks) asked.add(a.approvalId);
      try {
        seq = await waitForDecisions(ctx, seq, step, asks, requestedAt, deadline);
      } catch (err) {
        for (const a of asks) if (!recorded.has(a.approvalId)) abandoned.add(a.approvalId);
        throw err;
      }
      for (const a of asks) byCall.set(a.call.id, verdicts.get(a.approvalId)!);
      return { seq, verdicts: byCall, waitMs };
    },
  };

  /** Records the asks, then each decision as it comes, until every ask has one (the deadline gives the rest `timed_out`). */
  async function waitForDecisions(
    ctx: RunContext,
    seq: number,
    step: number,
    asks: Array<{ call: ToolCall; args: Record<string, unknown>; approvalId: string }>,
    requestedAt: number,
    deadline: number,
  ): Promise<number> {
    ({ nextSeq: seq } = await requestApprovals({
      ctx,
      seq,
      step,
      asks: asks.map((a) => ({ approvalId: a.approvalId, tool: a.call.name, args: a.args })),
      requestedAt,
      expiresAt: deadline,
    }));
    const unrecorded = () => asks.filter((a) => verdicts.has(a.approvalId) && !recorded.has(a.approvalId));
    while (asks.some((a) => !recorded.has(a.approvalId))) {
      const remaining = deadline - Date.now();
      const decided = remaining > 0 && (await condition(() => unrecorded().length > 0, remaining));
      if (!decided) {
        for (const a of asks)
          if (!verdicts.has(a.approvalId))
            verdicts.set(a.approvalId, { status: 'timed_out', comment: null, decidedBy: null, decidedAt: Date.now() });
      }
      for (const a of unrecorded()) {
        ({ nextSeq: seq } = await recordApprovalDecision({
          ctx,
          seq,
          approvalId: a.approvalId,
          tool: a.call.name,
          verdict: verdicts.get(a.approvalId)!,
          stillWaiting: asks.some((o) => o !== a && !recorded.has(o.approvalId)),
        }));
        recorded.add(a.approvalId);
      }
    }
    return seq;
  }
}

export type ApprovalGate = ReturnType<typeof createApprovalGate>;
