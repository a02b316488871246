import { recordsEvents, type RunContext } from '../completion/run-input';
import type { ApprovalVerdict, CompletionRunStore } from '../stores/completion-runs';
import { newEvent } from '../common/events';
import type { EventLog } from '../stores/event-log';
import type { RunEventStore } from '../stores/run-events';

export interface ApprovalActivityDeps {
  runs: CompletionRunStore;
  runEvents: RunEventStore;
  eventLog: EventLog;
}

export interface ApprovalAsk {
  approvalId: string;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * What a run records while tool calls wait for a person: the waiting calls (run `waiting_approval`,
 * stream `approval_required`, outbound `run.approval_required` with what the approver must see),
 * then each decision (stream `approval_decided`, outbound `run.approval_decided` with who decided;
 * the run `running` again once none waits). The
 * record and the outbound event are keyed by the approval id, so a retried activity writes them
 * once; its stream events follow those of the earlier attempt, as every retried stream writer's do.
 */
export function createApprovalActivities(deps: ApprovalActivityDeps) {
  return {
    async requestApprovals(input: {
      ctx: RunContext;
      seq: number;
      step: number;
      asks: ApprovalAsk[];
      requestedAt: number;
      expiresAt: number;
    }): Promise<{ nextSeq: number }> {
      const { ctx } = input;
      const requestedAt = new Date(input.requestedAt);
      const expiresAt = new Date(input.expiresAt);
      // The record first: whoever hears of an approval (a subscriber, the stream) can decide it at once.
      await deps.runs.awaitApprovals(
        ctx.traceId,
        input.asks.map((a) => ({ approvalId: a.approvalId, tool: a.tool, arguments: a.args, step: input.step, requestedAt, expiresAt })),
      );
      await deps.eventLog.appendMany(
        input.asks.map((a) =>
          newEvent(
            'run.approval_required',
            ctx.tenantId,
            `${ctx.traceId}:${a.approvalId}`,
            {
              trace_id: ctx.traceId,
              session_id: ctx.sessionId,
              agent_id: ctx.agentId,
              approval_id: a.approvalId,
              tool: a.tool,
              arguments: a.args,
              expires_at: expiresAt.toISOString(),
            },
            requestedAt,
          ),
        ),
      );
      if (!recordsEvents(ctx)) return { nextSeq: input.seq };
      const events = input.asks.map((a) => ({
        event: 'approval_required' as const,
        data: { approval_id: a.approvalId, tool: a.tool, args: a.args, step: input.step, expires_at: expiresAt.toISOString() },
      }));
      return { nextSeq: await deps.runEvents.append(ctx.traceId, input.seq, events, { announce: ctx.stream }) };
    },

    async recordApprovalDecision(input: {
      ctx: RunContext;
      seq: number;
      approvalId: string;
      tool: string;
      verdict: Omit<ApprovalVerdict, 'decidedAt'> & { decidedAt: number };
      /** Another call of the same step still waits: the run stays `waiting_approval`. */
      stillWaiting: boolean;
    }): Promise<{ nextSeq: number }> {
      const { ctx, verdict } = input;
      const decidedAt = new Date(verdict.decidedAt);
      await deps.runs.decideApproval(ctx.traceId, input.approvalId, { ...verdict, decidedAt }, input.stillWaiting);
      await deps.eventLog.appendMany([
        newEvent(
          'run.approval_decided',
          ctx.tenantId,
          `${ctx.traceId}:${input.approvalId}:decided`,
          {
            trace_id: ctx.traceId,
            session_id: ctx.sessionId,
            agent_id: ctx.agentId,
            approval_id: input.approvalId,
            tool: input.tool,
            status: verdict.status,
            comment: verdict.comment,
            decided_by: verdict.decidedBy,
            decided_at: decidedAt.toISOString(),
          },
          decidedAt,
        ),
      ]);
      if (!recordsEvents(ctx)) return { nextSeq: input.seq };
      const nextSeq = await deps.runEvents.append(
        ctx.traceId,
        input.seq,
        [
          {
            event: 'approval_decided',
            data: { approval_id: input.approvalId, tool: input.tool, status: verdict.status, comment: verdict.comment },
          },
        ],
        { announce: ctx.stream },
      );
      return { nextSeq };
    },
  };
}
