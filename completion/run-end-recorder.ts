import type { EventRecord } from '../common/events';
import type { Cost } from '../common/schemas/completions';
import type { CompletionRunStore, RunResult } from '../stores/completion-runs';
import type { CostQueue } from '../stores/cost-queue';
import type { EventLog } from '../stores/event-log';
import type { KeyedStreamEvent, RunEventStore } from '../stores/run-events';
import type { SessionTurnStore } from '../stores/session-turns';
import type { SessionStore, TurnMessage } from '../stores/sessions';
import { recordsEvents, type RunContext } from './run-input';

/** The stores a run's end is written to, narrowed to the writes it makes. */
export interface RunEndStores {
  sessions: Pick<SessionStore, 'recordTurn'>;
  runs: Pick<CompletionRunStore, 'complete' | 'fail' | 'cancel'>;
  eventLog: Pick<EventLog, 'appendMany'>;
  costQueue: Pick<CostQueue, 'enqueue'>;
  runEvents: Pick<RunEventStore, 'appendOnce'>;
  sessionTurns: Pick<SessionTurnStore, 'release'>;
  /** Tells the session's workflow, if one waits, that a run gave its turn back (commands/run-watch.ts). */
  onTurnReleased?: (sessionId: string, traceId: string) => Promise<void>;
}

/** How the run's record ends. */
type RunRecordEnd =
  | { status: 'completed'; result: RunResult }
  | { status: 'failed'; error: { code: number; message: string } }
  | { status: 'canceled'; result: Omit<RunResult, 'stopReason' | 'reference'> };

/** Everything a run's end writes, however it ended (see run-endings.ts for each kind). */
export interface RunEnding {
  ctx: RunContext;
  /** The stream event number the run's last events start from. */
  seq: number;
  at: Date;
  cost: Cost;
  record: RunRecordEnd;
  /** The session's turn (question and answer); absent when the run leaves none. */
  turn?: TurnMessage[];
  /** Outbound events (`session.finished`, `run.failed`, ...). */
  events: EventRecord[];
  /** Whether the run's cost goes to the tenant's totals. */
  queueCost: boolean;
  /** The stream's last events (`message`, `error`, `done`), each written once. */
  stream: KeyedStreamEvent[];
}

/**
 * The one recorder of a run's end: the session's turn, the run record, the outbound events, the
 * cost and the stream's last events. Every write is keyed by the run (derived message and event
 * ids, the trace id, stream event keys), so a recording retried after any of its writes adds no
 * second turn, event or cost. The stream's `done` goes last: whoever reads it finds the rest written.
 */
export function createRunEndRecorder(stores: RunEndStores) {
  const endRecord = (ending: RunEnding): Promise<unknown> => {
    const { ctx, record, at, cost } = ending;
    if (record.status === 'completed') return stores.runs.complete(ctx.traceId, record.result, at, ctx.runId);
    if (record.status === 'failed') return stores.runs.fail(ctx.traceId, record.error, cost, at, ctx.runId);
    return stores.runs.cancel(ctx.traceId, record.result, at, ctx.runId);
  };

  /**
   * Records the run's end. A cancel is written over a run that has not ended only, so it goes first
   * and alone: false when the run had ended otherwise (then nothing else is recorded).
   */
  async function recordEnd(ending: RunEnding): Promise<boolean> {
    const { ctx, at, cost } = ending;
    if (ending.record.status === 'canceled' && !(await endRecord(ending))) return false;
    // Independent writes, side by side: this is on every completion's path to its reply. All of them
    // settle before a failure is reported, so a retry never races a write of the attempt before it.
    const settled = await Promise.allSettled([
      ending.turn ? stores.sessions.recordTurn(ctx.tenantId, ctx.sessionId, ctx.traceId, ending.turn, at) : undefined,
      ending.events.length > 0 ? stores.eventLog.appendMany(ending.events) : undefined,
      ending.queueCost
        ? stores.costQueue.enqueue({
            tenantId: ctx.tenantId,
            traceId: ctx.traceId,
            agentId: ctx.agentId,
            tokens: cost.tokens,
            durationMs: cost.duration_ms,
            inputTokens: cost.input_tokens ?? 0,
            outputTokens: cost.output_tokens ?? 0,
            amount: cost.amount ?? 0,
            at,
          })
        : undefined,
      ending.record.status === 'canceled' ? undefined : endRecord(ending),
    ]);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    // Its end and its turn of the history are recorded: a run that took its session's turn gives it
    // back (stores/session-turns.ts). A streamed run does so before `done`, so that a client asking
    // again on `done` finds its session idle; a run nobody follows live (its JSON reply comes once
    // its workflow has ended) writes both at once.
    const released = ctx.holdsSessionTurn ? stores.sessionTurns.release(ctx.sessionId, ctx.traceId) : undefined;
    if (ctx.stream) await released;
    await Promise.all([
      released,
      recordsEvents(ctx) && ending.stream.length > 0
        ? stores.runEvents.appendOnce(ctx.traceId, ending.seq, ending.stream, { announce: ctx.stream })
        : undefined,
    ]);
    // Not waited for: a session workflow that waits also looks by itself, so a lost notice only delays it.
    if (ctx.holdsSessionTurn && stores.onTurnReleased) stores.onTurnReleased(ctx.sessionId, ctx.traceId).catch(() => undefined);
    return true;
  }

  return { recordEnd };
}
