import { createRunEventFeed, type RunEventListener } from '../../api/run-event-feed';
import { createLogger } from '../../common/logger';
import type { RunEventHead, StoredStreamEvent } from '../../stores/run-events';

/**
 * Runs' events in memory, numbered from 0 per run, each write moving the run's head (with the
 * write's events) as the store does; counts reads by number and reads of heads.
 */
function memoryStore({ withHeads = true } = {}) {
  const runs = new Map<string, StoredStreamEvent[]>();
  const heads = new Map<string, RunEventHead>();
  const reads: Array<{ traceId: string; seq: number }> = [];
  const found: number[] = [];
  const headReads: string[][] = [];
  let failHeads = 0;
  const eventsOf = (traceId: string) => runs.get(traceId) ?? runs.set(traceId, []).get(traceId)!;
  return {
    reads,
    found,
    headReads,
    /** The next `n` reads of heads fail. */
    failHeadReads(n: number) {
      failHeads = n;
    },
    /** One write of these events to the run. */
    write(kinds: Array<'thinking' | 'done'>, traceId = 'trc_1') {
      const events = eventsOf(traceId);
      const written = kinds.map((event) => {
        const data = event === 'done' ? { session_id: 'ses_1', trace_id: traceId } : { phase: 'model' as const };
        const stored = { event, data, seq: events.length, recordedAt: new Date() } as StoredStreamEvent;
        events.push(stored);
        return stored;
      });
      if (withHeads) heads.set(traceId, { next: events.length, events: written });
    },
    read: async (traceId: string, seq: number) => {
      reads.push({ traceId, seq });
      const event = eventsOf(traceId)[seq] ?? null;
      if (event) found.push(seq);
      return event;
    },
    heads: async (traceIds: string[]) => {
      headReads.push(traceIds);
      if (failHeads > 0) {
        failHeads--;
        throw new Error('store unavailable');
      }
      return new Map(traceIds.flatMap((id) => (heads.has(id) ? [[id, heads.get(id)!] as const] : [])));
    },
  };
}

const never = new AbortController().signal;
const log = createLogger('silent', 'test');

/** Every event a listener gets up to the run's `done`, by number. */
async function readToDone(listener: RunEventListener): Promise<number[]> {
  const got: number[] = [];
  for (let event = await listener.next(5_000, never); event; event = event.event === 'done' ? null : await listener.next(5_000, never))
    got.push(event.seq);
  return got;
}

/** Waits until `condition` holds (the feed's ticks are timers). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('run event feed', () => {
  it('gives each event to every listener of the run, from the heads without reading it again', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log });
    // As a new run's stream starts: its first event is written.
    store.write(['thinking']);
    const listeners = Array.from({ length: 5 }, () => feed.listen('trc_1', 0));
    try {
      expect((await listeners[0]!.next(5_000, never))?.seq).toBe(0);
      // Each write read by a tick before the next.
      for (const kinds of [['thinking'], ['thinking'], ['done']] as const) {
        store.write([...kinds]);
        await listeners[0]!.next(5_000, never);
      }
      for (const listener of listeners.slice(1)) expect(await readToDone(listener)).toEqual([0, 1, 2, 3]);
      // The one read by number is the run's first (at once, before any tick): the rest came with the heads.
      expect(store.reads).toEqual([{ traceId: 'trc_1', seq: 0 }]);
    } finally {
      for (const listener of listeners) listener.close();
    }
    expect(feed.followedRuns()).toBe(0);
  });

  it('reads quiet runs with one query of heads a tick, and only the runs that moved on by number', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log });
    const RUNS = 50;
    const traceIds = Array.from({ length: RUNS }, (_, i) => `trc_${i}`);
    for (const id of traceIds) store.write(['thinking'], id);
    const listeners = traceIds.map((id) => feed.listen(id, 0));
    for (const listener of listeners) expect((await listener.next(5_000, never))?.seq).toBe(0);
    const readsBefore = store.reads.length;
    // Many ticks while no run writes: heads only, one query for every run each.
    await until(() => store.headReads.length >= 20);
    expect(store.reads.length).toBe(readsBefore);
    expect(store.headReads.at(-1)).toHaveLength(RUNS);
    // Two writes to one run between ticks: the head carries the later, the earlier is read by number.
    store.write(['thinking'], 'trc_7');
    store.write(['thinking', 'done'], 'trc_7');
    expect(await readToDone(listeners[7]!)).toEqual([1, 2, 3]);
    expect(store.reads.slice(readsBefore)).toEqual([{ traceId: 'trc_7', seq: 1 }]);
    // An ended run drops out of the ticks' query.
    await until(() => store.headReads.at(-1)!.length === RUNS - 1);
    for (const listener of listeners) listener.close();
    expect(feed.followedRuns()).toBe(0);
  });

  it('reads a run without a head by number, and goes on after the heads failed to read', async () => {
    const store = memoryStore({ withHeads: false });
    const feed = createRunEventFeed(store, { pollMs: 1, log });
    store.failHeadReads(3);
    const listener = feed.listen('trc_1', 0);
    store.write(['thinking']);
    store.write(['thinking']);
    store.write(['done']);
    expect(await readToDone(listener)).toEqual([0, 1, 2]);
    listener.close();
  });

  it('lets a listener far behind read what it missed from the store, without holding the others up', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log });
    const fast = feed.listen('trc_1', 0);
    const slow = feed.listen('trc_1', 0);
    for (let i = 0; i < 600; i++) store.write(['thinking']);
    store.write(['done']);
    let last = -1;
    while (last < 600) last = (await fast.next(5_000, never))!.seq;
    // The slow one starts reading now, long after the kept events moved past its place.
    const readsBefore = store.reads.length;
    expect(await readToDone(slow)).toEqual(Array.from({ length: 601 }, (_, i) => i));
    // It read the events no longer kept itself, and no more.
    expect(store.reads.length - readsBefore).toBe(601 - 256);
    fast.close();
    slow.close();
  });

  it('stops reading the run when its last listener leaves', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log });
    const listener = feed.listen('trc_1', 0);
    const leaving = new AbortController();
    const waiting = listener.next(60_000, leaving.signal);
    leaving.abort();
    expect(await waiting).toBeNull();
    listener.close();
    expect(feed.followedRuns()).toBe(0);
    const ticks = store.headReads.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.headReads.length).toBe(ticks);
  });
});
