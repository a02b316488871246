import { createRunEventFeed } from '../../api/run-event-feed';
import { createLogger } from '../../common/logger';
import type { StoredStreamEvent } from '../../stores/run-events';

/** A run's events in memory, numbered from 0; counts reads by number. */
function memoryStore() {
  const events: StoredStreamEvent[] = [];
  const reads: number[] = [];
  const found: number[] = [];
  return {
    events,
    reads,
    found,
    add(event: 'thinking' | 'done') {
      const data = event === 'done' ? { session_id: 'ses_1', trace_id: 'trc_1' } : { phase: 'model' as const };
      events.push({ event, data, seq: events.length, recordedAt: new Date() } as StoredStreamEvent);
    },
    read: async (_traceId: string, seq: number) => {
      reads.push(seq);
      if (events[seq]) found.push(seq);
      return events[seq] ?? null;
    },
  };
}

const never = new AbortController().signal;

describe('run event feed', () => {
  it('reads each event once for every listener of the run', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log: createLogger('silent', 'test') });
    const listeners = Array.from({ length: 5 }, () => feed.listen('trc_1', 0));
    for (let i = 0; i < 3; i++) store.add('thinking');
    store.add('done');
    for (const listener of listeners) {
      const got: number[] = [];
      for (let event = await listener.next(5_000, never); event; event = event.event === 'done' ? null : await listener.next(5_000, never))
        got.push(event.seq);
      expect(got).toEqual([0, 1, 2, 3]);
    }
    expect(store.found).toEqual([0, 1, 2, 3]);
    for (const listener of listeners) listener.close();
    expect(feed.followedRuns()).toBe(0);
  });

  it('lets a listener far behind read what it missed from the store, without holding the others up', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log: createLogger('silent', 'test') });
    const fast = feed.listen('trc_1', 0);
    const slow = feed.listen('trc_1', 0);
    for (let i = 0; i < 600; i++) store.add('thinking');
    store.add('done');
    let last = -1;
    while (last < 600) last = (await fast.next(5_000, never))!.seq;
    // The slow one starts reading now, long after the kept events moved past its place.
    const readsBefore = store.reads.length;
    const got: number[] = [];
    for (let event = await slow.next(5_000, never); event; event = event.event === 'done' ? null : await slow.next(5_000, never))
      got.push(event.seq);
    expect(got).toEqual(Array.from({ length: 601 }, (_, i) => i));
    // It read the events no longer kept itself, and no more.
    expect(store.reads.length - readsBefore).toBe(601 - 256);
    fast.close();
    slow.close();
  });

  it('stops reading the run when its last listener leaves', async () => {
    const store = memoryStore();
    const feed = createRunEventFeed(store, { pollMs: 1, log: createLogger('silent', 'test') });
    const listener = feed.listen('trc_1', 0);
    const leaving = new AbortController();
    const waiting = listener.next(60_000, leaving.signal);
    leaving.abort();
    expect(await waiting).toBeNull();
    listener.close();
    expect(feed.followedRuns()).toBe(0);
  });
});
