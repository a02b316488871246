import type { Logger } from '../common/logger';
import { headMoveSecond, type RunEventHead, type RunEventStore, type StoredStreamEvent } from '../stores/run-events';

/** Longest pause between two reads of a run that has no head (see below) and nothing new. */
const MAX_DIRECT_POLL_MS = 200;
/**
 * Events of a run kept in memory for its listeners. A listener further behind (its client reads
 * slowly, or it resumed from early on) reads the events it misses from the store itself until it
 * is back within them: it neither holds the others up nor makes the process keep more.
 */
const WINDOW_EVENTS = 256;
/**
 * Every this often a tick reads the heads of every followed run (a `$in`, which FerretDB scans):
 * what the ticks' reads by second missed (a writer's clock more than a second behind) comes then.
 */
const FULL_READ_MS = 10_000;
/** Seconds of moves a tick reads at most; a tick later than that (a blocked event loop) reads every followed head. */
const MAX_SECONDS_BEHIND = 3;

interface RunFollow {
  traceId: string;
  /** Number of the first event in `window`; the reader looks for `base + window.length` next. */
  base: number;
  window: StoredStreamEvent[];
  listeners: number;
  /** Listeners waiting for the reader's next event. */
  waiting: Set<() => void>;
  /** The last listener left: nothing reads the run any more. */
  closed: boolean;
  /** The reader has read the run's `done`: nothing follows it. */
  ended: boolean;
  /** A read of the run's events is going: ticks leave the run to it. */
  reading: boolean;
  /** The run had no head when last looked for: it is read by number. */
  headless: boolean;
  /** The furthest head seen of the run: the number after its latest event, and the events it carried. */
  announced: number;
  carried: StoredStreamEvent[];
  /** A run without a head is read by number: when next, and the pause after a read that found nothing. */
  directAt: number;
  directWait: number;
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
 * (not one per client) keeps the run's latest events in memory for all its listeners, however many
 * follow it.
 *
 * Reads follow events rather than time. Each write of a run's events moves the run's head (the
 * number after its latest event, with the write's events: RunEventStore.heads), stamped with the
 * second it moved in. Every `pollMs` one query reads the heads that moved in the current second
 * (an equality, cheap on FerretDB too; the second before as well once the second changed), and
 * only followed runs among them are read on, usually from the head itself. A run that waits to
 * start, or is quiet, costs nothing, however many runs the process follows. A new follow reads its
 * run's head by `_id` at once (a new stream does not wait for the tick), and every FULL_READ_MS a
 * tick reads the heads of all followed runs, which bounds what a writer's clock running behind
 * could hold up. A run with no head (written before heads existed, or ended long ago) is read by
 * number, more rarely while it has nothing new, down to every MAX_DIRECT_POLL_MS. Polling, since
 * FerretDB has no change streams.
 */
export function createRunEventFeed(
  store: Pick<RunEventStore, 'read' | 'heads' | 'headsMovedIn'>,
  { pollMs, log }: { pollMs: number; log: Logger },
) {
  const follows = new Map<string, RunFollow>();
  /** Whether a tick is due or going (ticks run while the process follows a run). */
  let ticking = false;

  const nextSeq = (follow: RunFollow) => follow.base + follow.window.length;

  const wake = (follow: RunFollow) => {
    const waiting = [...follow.waiting];
    follow.waiting.clear();
    for (const resume of waiting) resume();
  };

  const keep = (follow: RunFollow, event: StoredStreamEvent) => {
    follow.window.push(event);
    if (follow.window.length > WINDOW_EVENTS) {
      follow.window.shift();
      follow.base++;
    }
    follow.ended = event.event === 'done';
    wake(follow);
  };

  /**
   * Reads the run's next events, each from its furthest head when it carries it, else by number: up
   * to that head, or (`direct`, a run without one) until one is not found. True when it found one.
   */
  async function readRun(follow: RunFollow, direct = false): Promise<boolean> {
    follow.reading = true;
    let found = 0;
    try {
      while (!follow.closed && !follow.ended && (direct || nextSeq(follow) < follow.announced)) {
        const seq = nextSeq(follow);
        const event = follow.carried.find((e) => e.seq === seq) ?? (await store.read(follow.traceId, seq));
        if (!event) break;
        keep(follow, event);
        found++;
      }
    } catch (err) {
      log.warn('reading a run stream failed; trying again', { trace_id: follow.traceId, error: String(err) });
    } finally {
      follow.reading = false;
    }
    return found > 0;
  }

  /** A run without a head: read by number when due, less often while it has nothing new. */
  async function readHeadless(follow: RunFollow): Promise<void> {
    const found = await readRun(follow, true);
    follow.directWait = found ? pollMs : Math.min(MAX_DIRECT_POLL_MS, Math.ceil(follow.directWait * 1.5));
    follow.directAt = Date.now() + follow.directWait;
  }

  /** Reads of runs go on beside the ticks; they survive the store's failures themselves. */
  function beside(reading: Promise<unknown>, traceId: string): void {
    reading.catch((err: unknown) => log.error('a run stream read stopped', { trace_id: traceId, error: String(err) }));
  }

  /**
   * Takes note of the run's head (if any, and further than any seen) and reads on up to it, unless a
   * read of the run is going: that one reads on to the furthest head seen (a head seen meanwhile is
   * not lost, though it may not come again). A run without a head is read by number when due.
   */
  function advance(follow: RunFollow, head: RunEventHead | undefined): void {
    if (follow.closed || follow.ended) return;
    if (head && head.next > follow.announced) {
      follow.announced = head.next;
      follow.carried = head.events;
    }
    if (follow.reading) return;
    if (follow.announced > nextSeq(follow)) beside(readRun(follow), follow.traceId);
    else if (follow.headless && Date.now() >= follow.directAt) beside(readHeadless(follow), follow.traceId);
  }

  /** Reads the run's head by `_id` (cheap everywhere), then its events up to it: a new follow's start. */
  async function begin(follow: RunFollow): Promise<void> {
    follow.reading = true;
    let head: RunEventHead | undefined;
    try {
      head = (await store.heads([follow.traceId])).get(follow.traceId);
    } catch (err) {
      log.warn("reading a run's head failed; reading its events by number", { trace_id: follow.traceId, error: String(err) });
    } finally {
      follow.reading = false;
    }
    follow.headless = head === undefined;
    advance(follow, head);
  }

  /** The second of the last tick's reads of moved heads (null: none yet since the ticks started). */
  let lastSecond: number | null = null;
  let lastFullAt = 0;

  async function tick(): Promise<void> {
    const started = Date.now();
    const second = headMoveSecond(started);
    const going = [...follows.values()].filter((f) => !f.ended && !f.closed);
    if (going.length > 0) {
      try {
        if (lastSecond === null || started - lastFullAt >= FULL_READ_MS || second - lastSecond > MAX_SECONDS_BEHIND) {
          const heads = await store.heads(going.map((f) => f.traceId));
          for (const follow of going) {
            const head = heads.get(follow.traceId);
            follow.headless = head === undefined;
            advance(follow, head);
          }
          lastFullAt = started;
        } else {
          // The heads moved since the last tick's second (that one again: a head may have moved in it since).
          for (let s = lastSecond; s <= second; s++) {
            for (const [traceId, head] of await store.headsMovedIn(s)) {
              const follow = follows.get(traceId);
              if (!follow) continue;
              follow.headless = false;
              advance(follow, head);
            }
          }
          // Runs without a head when due, and runs whose read stopped short of their head (a failed read).
          for (const follow of going) advance(follow, undefined);
        }
        lastSecond = second;
      } catch (err) {
        // lastSecond stays: the next tick reads the seconds this one missed.
        log.warn("reading the followed runs' heads failed; trying again", { runs: going.length, error: String(err) });
      }
    }
    if (follows.size === 0) {
      ticking = false;
      return;
    }
    // The ticks keep no process alive by themselves (the streams' connections do).
    setTimeout(runTick, Math.max(0, pollMs - (Date.now() - started))).unref();
  }

  // tick() survives the store's failures itself: what gets here is a fault of its own.
  const runTick = () => {
    tick().catch((err: unknown) => {
      log.error('the run stream reader stopped', { error: String(err) });
      ticking = false;
    });
  };

  /** Waits for the run's reader to read on, at most `timeoutMs` and until `signal` aborts. */
  function readerMovesOn(follow: RunFollow, timeoutMs: number, signal: AbortSignal): Promise<void> {
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
          closed: false,
          ended: false,
          reading: false,
          headless: false,
          announced: fromSeq,
          carried: [],
          directAt: 0,
          directWait: pollMs,
        };
        follows.set(traceId, created);
        // At once (a new run's first events are written before its stream starts), not at the next tick.
        beside(begin(created), traceId);
        if (!ticking) {
          ticking = true;
          // Each follow reads its head as it starts: the ticks begin with the moves from now on.
          lastSecond = headMoveSecond(Date.now());
          lastFullAt = Date.now();
          setTimeout(runTick, pollMs).unref();
        }
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
            await readerMovesOn(run, timeoutMs, signal);
          }
        },
        position: () => seq,
        close() {
          if (closed) return;
          closed = true;
          if (--run.listeners > 0) return;
          run.closed = true;
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
