import { createRunEventFeed, type RunEventListener } from '../../api/run-event-feed';
import { createLogger } from '../../common/logger';
import { headMoveSecond, type RunEventHead, type StoredStreamEvent } from '../../stores/run-events';

/**
 * Runs' events in memory, numbered from 0 per run, each write moving the run's head (with the
 * write's events, in the current second) as the store does; counts reads by number and of heads.
 */
function memoryStore({ withHeads = true } = {}) {
  const runs = new Map<string, StoredStreamEvent[]>();
  const heads = new Map<string, RunEventHead & { moved: number }>();
  const reads: Array<{ traceId: string; seq: number }> = [];
  const found: number[] = [];
  /** Reads of heads: by run (how many runs asked for) or by second ('moved'). */
  const headReads: Array<number | 'moved'> = [];
  let failHeads = 0;
  const eventsOf = (traceId: string) => runs.get(traceId) ?? runs.set(traceId, []).get(traceId)!;
  const failing = () => {
    if (failHeads === 0) return false;
    failHeads--;
    return true;
  };
  const headOf = ({ next, events }: RunEventHead) => ({ next, events });
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
      if (withHeads) heads.set(traceId, { next: events.length, events: written, moved: headMoveSecond(Date.now()) });
    },
    read: async (traceId: string, seq: number) => {
      reads.push({ traceId, seq });
      const event = eventsOf(traceId)[seq] ?? null;
      if (event) found.push(seq);
      return event;
    },
    heads: async (traceIds: string[]) => {
      headReads.push(traceIds.length);
      if (failing()) throw new Error('store unavailable');
      return new Map(traceIds.flatMap((id) => (heads.has(id) ? [[id, headOf(heads.get(id)!)] as const] : [])));
    },
    headsMovedIn: async (second: number) => {
      headReads.push('moved');
      if (failing()) throw new Error('store unavailable');
      return new Map([...heads].filter(([, head]) => head.moved === second).map(([id, head]) => [id, headOf(head)] as const));
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
      // Every event came with the run's head: read at once for the first, by second for the rest.
      expect(store.reads).toEqual([]);
      expect(store.headReads[0]).toBe(1);
      expect(store.headReads.slice(1).every((read) => read === 'moved')).toBe(true);
    } finally {
      for (const listener of listeners) listener.close();
    }
    expect(feed.followedRuns()).toBe(0);
  });

  it('reads quiet runs with one query of moved heads a tick, and only the runs that moved on', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log });
    const RUNS = 50;
    const traceIds = Array.from({ length: RUNS }, (_, i) => `trc_${i}`);
    for (const id of traceIds) store.write(['thinking'], id);
    const listeners = traceIds.map((id) => feed.listen(id, 0));
    try {
      for (const listener of listeners) expect((await listener.next(5_000, never))?.seq).toBe(0);
      // Each new follow read its run's head by itself, once.
      expect(store.headReads.filter((read) => read !== 'moved')).toEqual(Array.from({ length: RUNS }, () => 1));
      const readsBefore = store.headReads.length;
      // Many ticks while no run writes: one query of moved heads each, and no run is read.
      await until(() => store.headReads.length >= readsBefore + 20);
      expect(store.headReads.slice(readsBefore).every((read) => read === 'moved')).toBe(true);
      expect(store.reads).toEqual([]);
      // Two writes to one run between ticks: the head carries the later, the earlier is read by number.
      store.write(['thinking'], 'trc_7');
      store.write(['thinking', 'done'], 'trc_7');
      expect(await readToDone(listeners[7]!)).toEqual([1, 2, 3]);
      expect(store.reads).toEqual([{ traceId: 'trc_7', seq: 1 }]);
    } finally {
      for (const listener of listeners) listener.close();
    }
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
