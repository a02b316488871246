import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes } from '../common/errors';
import type { Logger } from '../common/logger';
import { type RunEventStore, type RunOwner, streamEventId } from '../stores/run-events';
import type { AppContext } from './context';

export interface EventStreamDeps {
  runEvents: RunEventStore;
  /** Settles once the run has ended (commands.completions.ended), or at once when `signal` aborts. */
  runEnded(tenantId: string, traceId: string, signal: AbortSignal): Promise<void>;
  log: Logger;
  pollMs: number;
  keepAliveMs: number;
}

/** How long after its workflow ended a stream waits for the run's own `done` before writing one itself. */
const END_GRACE_MS = 3_000;
const MAX_POLL_MS = 200;

/** How long a client waits before reconnecting, sent once with the first event. */
const RECONNECT_MS = 1_000;

// `retry:` rides in the first event's frame: a frame of its own has no `data`, and common clients
// (Python's httpx-sse) take every frame for an event.
const frame = (traceId: string, seq: number, event: string, data: unknown, first: boolean) =>
  `${first ? `retry: ${RECONNECT_MS}\n` : ''}id: ${streamEventId(traceId, seq)}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Serves a run's stream events from `fromSeq` on as text/event-stream, following the persisted
 * events by number; any API process can serve any stream, and a client reconnecting with
 * Last-Event-ID gets exactly the events after the one it names. Ends after `done`. If the workflow
 * ends without one (terminated by an operator, say), `error` and `done` are written for it.
 */
export function streamRunEvents(ctx: AppContext, deps: EventStreamDeps, traceId: string, owner: RunOwner, fromSeq: number): void {
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  const out = new PassThrough();
  ctx.body = out;
  // Ends the stream's waits (its run-end wait's Temporal call, its poll's timer) at once when the
  // client leaves (the request's signal) or the stream has sent its `done`.
  const over = new AbortController();
  const signal = AbortSignal.any([ctx.state.signal, over.signal]);

  let endedAt: number | null = null;
  const markEnded = () => (endedAt = Date.now());
  // A failed wait counts as an end too: the stream then closes itself after END_GRACE_MS. A wait the
  // client's leaving ended is no failure.
  deps.runEnded(owner.tenant_id, traceId, signal).then(markEnded, (err: unknown) => {
    if (!signal.aborted)
      deps.log.warn("could not follow the run's end; the stream closes itself if no done comes", { trace_id: traceId, error: String(err) });
    markEnded();
  });

  const pump = async () => {
    let seq = fromSeq;
    let lastWrite = Date.now();
    let wait = deps.pollMs;
    let first = true;
    // Resumed after its `done`: the stream has nothing more to send.
    if (seq > 0 && (await deps.runEvents.read(traceId, seq - 1))?.event === 'done') return;
    while (!signal.aborted) {
      const event = await deps.runEvents.read(traceId, seq);
      if (event) {
        out.write(frame(traceId, seq, event.event, { ...event.data, timestamp: event.recordedAt.toISOString() }, first));
        first = false;
        lastWrite = Date.now();
        seq++;
        wait = deps.pollMs;
        if (event.event === 'done') break;
        continue;
      }
      if (endedAt !== null && Date.now() - endedAt > END_GRACE_MS) {
        await deps.runEvents.append(traceId, seq, [
          { event: 'error', data: { code: ErrorCodes.INTERNAL, message: 'the run ended without finishing its stream' } },
          { event: 'done', data: { session_id: owner.session_id, trace_id: traceId } },
        ]);
        continue;
      }
      if (Date.now() - lastWrite >= deps.keepAliveMs) {
        out.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
      await sleep(wait, undefined, { signal }).catch(() => undefined);
      wait = Math.min(MAX_POLL_MS, Math.ceil(wait * 1.5));
    }
  };
  pump()
    .catch((err: unknown) => deps.log.error('completion stream failed', { trace_id: traceId, error: String(err) }))
    .finally(() => {
      over.abort();
      out.end();
    });
}
