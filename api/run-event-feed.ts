import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../common/logger';
import type { RunEventStore, StoredStreamEvent } from '../stores/run-events';

/** Longest pause between two reads of a run that has nothing new. */
const MAX_POLL_MS = 200;
/**
 * Events of a run kept in memory for its listeners. A listener further behind (its client reads
 * slowly, or it resumed from early on) reads the events it misses from the store itself until it
 * is back within them: it neither holds the others up nor makes the process keep more.
 */
const WINDOW_EVENTS = 256;

interface RunFollow {
  traceId: string;
  /** Number of the first event in `window`; the reader looks for `base + window.length` next. */
  base: number;
  window: StoredStreamEvent[];
  listeners: number;
  /** Listeners waiting for the reader's next event. */
  waiting: Set<() => void>;
  /** Aborted when the last listener leaves: the reader's wait ends at once. */
  stop: AbortController;
  /** The reader has read the run's `done`: nothing follows it. */
  ended: boolean;
}

/** One listener's place in a run's events. */
export interface RunEventListener {
  /** The next event, or null when none came within `timeoutMs` or `signal` aborted. */
  next(timeoutMs: number, signal: AbortSignal): Promise<StoredStreamEvent | null>;
  /** The number of the event next() gives next. */
  position(): number;
  /** Leaves the run: its reader stops with its last listener. */
  close(): void;
}

/**
 * Follows runs' stream events for every stream of this API process: one reader per followed run
 * (not one per client) reads the run's events by number and keeps the latest in memory for all the
 * run's listeners, however many follow it. Polling, since FerretDB has no change streams; a run
 * that has nothing new is read less often, down to every MAX_POLL_MS.
 *
 * Not batched across runs: FerretDB (1.x on PostgreSQL) hands only equality filters to its
 * backend, so one query for many runs' next events (`$in` or ranges on `_id`) scans the collection.
 */
export function createRunEventFeed(store: Pick<RunEventStore, 'read'>, { pollMs, log }: { pollMs: number; log: Logger }) {
  const follows = new Map<string, RunFollow>();

  const wake = (follow: RunFollow) => {
    const waiting = [...follow.waiting];
    follow.waiting.clear();
    for (const resume of waiting) resume();
  };

  async function read(follow: RunFollow): Promise<void> {
    let wait = pollMs;
    while (!follow.stop.signal.aborted && !follow.ended) {
      let event: StoredStreamEvent | null = null;
      try {
        event = await store.read(follow.traceId, follow.base + follow.window.length);
      } catch (err) {
        log.warn('reading a run stream failed; trying again', { trace_id: follow.traceId, error: String(err) });
      }
      if (event) {
        follow.window.push(event);
        if (follow.window.length > WINDOW_EVENTS) {
          follow.window.shift();
          follow.base++;
        }
        follow.ended = event.event === 'done';
        wait = pollMs;
        wake(follow);
        continue;
      }
      await sleep(wait, undefined, { signal: follow.stop.signal }).catch(() => undefined);
      wait = Math.min(MAX_POLL_MS, Math.ceil(wait * 1.5));
    }
  }

  /** Waits for the run's reader to read on, at most `timeoutMs` and until `signal` aborts. */
  function readOn(follow: RunFollow, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        follow.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      follow.waiting.add(done);
    });
  }

  return {
    /** A listener of the run's events from number `fromSeq` on. */
    listen(traceId: string, fromSeq: number): RunEventListener {
      let follow = follows.get(traceId);
      if (!follow) {
        const created: RunFollow = {
          traceId,
          base: fromSeq,
          window: [],
          listeners: 0,
          waiting: new Set(),
          stop: new AbortController(),
          ended: false,
        };
        follows.set(traceId, created);
        // read() survives the store's failures itself: what gets here is a fault of its own.
        read(created).catch((err: unknown) => log.error('a run stream reader stopped', { trace_id: traceId, error: String(err) }));
        follow = created;
      }
      follow.listeners++;
      const run = follow;
      let seq = fromSeq;
      let closed = false;
      return {
        async next(timeoutMs, signal) {
          for (let waited = false; ; waited = true) {
            if (seq < run.base) {
              // Behind the events kept: read from the store, as a resumed stream would.
              const event = await store.read(traceId, seq);
              if (event) seq++;
              return event;
            }
            const kept = run.window[seq - run.base];
            if (kept) {
              seq++;
              return kept;
            }
            if (waited || signal.aborted || run.ended) return null;
            await readOn(run, timeoutMs, signal);
          }
        },
        position: () => seq,
        close() {
          if (closed) return;
          closed = true;
          if (--run.listeners > 0) return;
          run.stop.abort();
          wake(run);
          if (follows.get(traceId) === run) follows.delete(traceId);
        },
      };
    },

    /** Runs followed now (for tests and diagnostics). */
    followedRuns: () => follows.size,
  };
}

export type RunEventFeed = ReturnType<typeof createRunEventFeed>;
