import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCodes } from '../common/errors';
import type { Logger } from '../common/logger';
import type { StreamFormat } from '../common/schemas/completions';
import { MessageShaper } from '../common/stream-messages';
import { type RunEventStore, type RunOwner, type StoredStreamEvent, streamEventId } from '../stores/run-events';
import type { StreamOpening } from '../commands/completions';
import { createRunEventFeed, type RunEventFeed } from './run-event-feed';
import type { Services } from './services';
import type { AppContext } from './context';

export interface EventStreamDeps {
  runEvents: RunEventStore;
  /** The process's readers of runs' events, shared by every stream of a run. */
  feed: RunEventFeed;
  /** Settles once the run has ended (commands.completions.ended), or at once when `signal` aborts. */
  runEnded(tenantId: string, traceId: string, signal: AbortSignal): Promise<void>;
  log: Logger;
  keepAliveMs: number;
}

/** The process's stream dependencies, one set (one shared reader of runs' events) for every route that streams runs. */
export const createEventStreamDeps = (services: Services): EventStreamDeps => ({
  runEvents: services.runEvents,
  feed: createRunEventFeed(services.runEvents, { pollMs: services.config.STREAM_POLL_MS, log: services.log }),
  runEnded: (tenantId, traceId, signal) => services.commands.completions.ended(tenantId, traceId, signal),
  log: services.log,
  keepAliveMs: services.config.STREAM_KEEPALIVE_MS,
});

/** How long after its workflow ended a stream waits for the run's own `done` before writing one itself. */
const END_GRACE_MS = 3_000;
/** How often a stream with nothing to send looks whether its run has ended without a `done`. */
const END_CHECK_MS = 1_000;

/** How long a client waits before reconnecting, sent once with the first event. */
const RECONNECT_MS = 1_000;

/** An event as a stream sends it: its `message` data shaped for the stream's format. */
export type SentEvent = Pick<StoredStreamEvent, 'seq' | 'event' | 'recordedAt'> & { data: object };

/** How a stream writes its events on the wire: the contract's frames, or another format (OpenAI's chunks). */
export interface StreamFraming {
  /** The text that carries one event, '' for an event the format does not show; `first`: nothing was written before. */
  frame(event: SentEvent, first: boolean): string;
}

/**
 * The contract's frames: `id:`, `event:` and one `data:` line with the event's time. `retry:` rides
 * in the first event's frame: a frame of its own has no `data`, and common clients (Python's
 * httpx-sse) take every frame for an event.
 */
const contractFraming = (traceId: string): StreamFraming => ({
  frame: ({ seq, event, data, recordedAt }, first) =>
    `${first ? `retry: ${RECONNECT_MS}\n` : ''}id: ${streamEventId(traceId, seq)}\nevent: ${event}\ndata: ${JSON.stringify({
      ...data,
      timestamp: recordedAt.toISOString(),
    })}\n\n`,
});

/** Which run's events a stream serves, from where, and how. */
export interface StreamedRun {
  traceId: string;
  owner: RunOwner;
  fromSeq: number;
  format?: StreamFormat;
  opening?: StreamOpening;
  /** The contract's frames unless told otherwise. */
  framing?: StreamFraming;
}

/**
 * Serves a run's stream events from `fromSeq` on as text/event-stream, following the persisted
 * events by number through the process's shared reader of the run (see createRunEventFeed); any
 * API process can serve any stream, and a client reconnecting with Last-Event-ID gets exactly the
 * events after the one it names. `message` events go out as `format` asks (see MessageShaper). Ends after `done`. If the workflow
 * ends without one (terminated by an operator, say), `error` and `done` are written for it.
 *
 * A new run's stream (`opening`) sends its first event from memory at once, then follows the store
 * once the run's hand-over has settled (keeping the connection alive meanwhile); a hand-over that
 * failed with nothing recorded ends it with `error` and `done`.
 */
export function streamRunEvents(ctx: AppContext, deps: EventStreamDeps, run: StreamedRun): void {
  const { traceId, owner, fromSeq, format = 'answer', opening, framing = contractFraming(traceId) } = run;
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  const out = new PassThrough();
  ctx.body = out;
  // Ends the stream's waits (its run-end wait's Temporal call, its wait for the run's reader, a
  // write waiting for the client) at once when the client leaves (the request's signal) or the
  // stream has sent its `done`.
  const over = new AbortController();
  const signal = AbortSignal.any([ctx.state.signal, over.signal]);

  let endedAt: number | null = null;
  const markEnded = () => (endedAt = Date.now());

  let first = true;
  /** Writes the event: null when its framing shows nothing of it, else whether the stream still flows. */
  const send = (event: SentEvent, data: object = event.data): boolean | null => {
    const text = framing.frame({ ...event, data }, first);
    if (text === '') return null;
    first = false;
    return out.write(text);
  };

  /**
   * Sends the opening's first event, then waits for the hand-over with keep-alives: true when the
   * stream goes on from the store, false when it has ended (the client left, or the hand-over failed
   * with nothing recorded: `error` and `done` sent from memory).
   */
  const open = async ({ first: accepted, handedOver }: StreamOpening): Promise<boolean> => {
    send(accepted);
    const settled = handedOver.then(
      () => null,
      (err: unknown) => (err instanceof AppError ? err : new AppError(ErrorCodes.INTERNAL, 'the completion could not be started')),
    );
    for (;;) {
      // The pause ends with the wait: no timer outlives it.
      const pause = new AbortController();
      const paused = sleep(deps.keepAliveMs, 'idle' as const, { signal: AbortSignal.any([signal, pause.signal]) }).catch(
        () => 'over' as const,
      );
      const failure = await Promise.race([settled, paused]);
      pause.abort();
      if (signal.aborted || failure === 'over') return false;
      if (failure === 'idle') {
        out.write(': keep-alive\n\n');
        continue;
      }
      if (failure === null) return true;
      const at = new Date();
      send({ seq: accepted.seq + 1, event: 'error', data: { code: failure.code, message: failure.message }, recordedAt: at });
      send({
        seq: accepted.seq + 2,
        event: 'done',
        data: { session_id: owner.session_id, trace_id: traceId, stop_reason: 'failed' },
        recordedAt: at,
      });
      return false;
    }
  };

  const pump = async () => {
    if (opening && !(await open(opening))) return;
    // A failed wait counts as an end too: the stream then closes itself after END_GRACE_MS. A wait the
    // client's leaving ended is no failure.
    deps.runEnded(owner.tenant_id, traceId, signal).then(markEnded, (err: unknown) => {
      if (!signal.aborted)
        deps.log.warn("could not follow the run's end; the stream closes itself if no done comes", {
          trace_id: traceId,
          error: String(err),
        });
      markEnded();
    });
    const messages = new MessageShaper(format);
    // An opened stream's client has only the `accepted` event: nothing of the answer to go on from.
    if (fromSeq > 0 && !opening) {
      // What the client has: a resumed stream goes on from the answer's text so far.
      const before = await deps.runEvents.readBefore(traceId, fromSeq);
      // Resumed after its `done`: the stream has nothing more to send.
      if (before.at(-1)?.event === 'done') return;
      for (const event of before) if (event.event === 'message') messages.follow(event.data);
    }
    const listener = deps.feed.listen(traceId, fromSeq);
    let lastWrite = Date.now();
    try {
      while (!signal.aborted) {
        const event = await listener.next(Math.min(deps.keepAliveMs, END_CHECK_MS), signal);
        if (event) {
          const flowing = send(event, event.event === 'message' ? messages.shape(event.data) : event.data);
          if (event.event === 'done') break;
          // A slow client holds up only its own stream: it reads on from the store once it has fallen behind the run's reader.
          if (flowing === false) await once(out, 'drain', { signal }).catch(() => undefined);
          if (flowing !== null) {
            lastWrite = Date.now();
            continue;
          }
          // An event the framing does not show keeps no connection alive: the keep-alives go on below.
        }
        if (!event && endedAt !== null && Date.now() - endedAt > END_GRACE_MS) {
          // Announced whatever the run was: its followers in other processes may follow its head.
          await deps.runEvents.append(
            traceId,
            listener.position(),
            [
              { event: 'error', data: { code: ErrorCodes.INTERNAL, message: 'the run ended without finishing its stream' } },
              { event: 'done', data: { session_id: owner.session_id, trace_id: traceId } },
            ],
            { announce: true },
          );
          continue;
        }
        if (Date.now() - lastWrite >= deps.keepAliveMs) {
          out.write(': keep-alive\n\n');
          lastWrite = Date.now();
        }
      }
    } finally {
      listener.close();
    }
  };
  pump()
    .catch((err: unknown) => deps.log.error('completion stream failed', { trace_id: traceId, error: String(err) }))
    .finally(() => {
      over.abort();
      out.end();
    });
}
