import type { Db } from 'mongodb';
import { randomToken } from '../../common/ids';
import { connectMongo, type MongoHandle } from '../../stores/mongo';
import { createRunEventStore, headMoveSecond, type RunEventStore } from '../../stores/run-events';
import { testConfig } from '../support/config';

/**
 * Run heads on the real FerretDB: each write of a run's events moves its head, which the stream
 * readers read for all their runs in one query, and the maintenance purge removes the heads of
 * runs that ended (or stopped writing) so that the heads stay as few as the runs going.
 */
let mongo: MongoHandle;
let db: Db;
let store: RunEventStore;

beforeAll(async () => {
  const config = testConfig();
  mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  db = mongo.db;
  store = createRunEventStore(db);
});
afterAll(async () => {
  await db?.dropDatabase();
  await mongo?.close();
});

const newTrace = () => `trc_${randomToken(20)}`;
const thinking = { event: 'thinking' as const, data: { phase: 'model' as const } };
const done = (traceId: string) => ({ event: 'done' as const, data: { session_id: 'ses_x', trace_id: traceId } });
/** The writes of a streamed run: they move its head. */
const announced = { announce: true };

describe('run heads', () => {
  it('move with each write, carry the latest events when small, and never go back', async () => {
    const [a, b, unknown] = [newTrace(), newTrace(), newTrace()];
    await store.append(a, 0, [thinking, thinking], announced);
    await store.append(b, 0, [thinking], announced);
    let heads = await store.heads([a, b, unknown]);
    expect([...heads.keys()].sort()).toEqual([a, b].sort());
    expect(heads.get(a)!.next).toBe(2);
    expect(heads.get(a)!.events.map((e) => [e.seq, e.event])).toEqual([
      [0, 'thinking'],
      [1, 'thinking'],
    ]);
    // A large write: only its number rides in the head, its event is read by number.
    const long = { event: 'message' as const, data: { answer: 'x'.repeat(40_000), reference: [] } };
    await store.append(b, 1, [long], announced);
    heads = await store.heads([b]);
    expect(heads.get(b)).toEqual({ next: 2, events: [] });
    // Two writers of one run whose head updates land out of order (here: the later numbers written
    // first): the head stays at the later write.
    await store.append(a, 10, [thinking, done(a)], announced);
    await store.append(a, 2, [thinking], announced);
    heads = await store.heads([a]);
    expect(heads.get(a)!.next).toBe(12);
    // It carries the run's latest events this process wrote, from before the gap too.
    expect(heads.get(a)!.events.map((e) => [e.seq, e.event])).toEqual([
      [0, 'thinking'],
      [1, 'thinking'],
      [10, 'thinking'],
      [11, 'done'],
    ]);
    // What a head announces is stored when the head is written.
    expect(await store.read(a, 11)).not.toBeNull();
    // Readers find it among the heads moved in this second (or the one before, if it just changed).
    const second = headMoveSecond(Date.now());
    const moved = new Map([...(await store.headsMovedIn(second - 1)), ...(await store.headsMovedIn(second))]);
    expect(moved.get(a)?.next).toBe(12);
    expect(moved.has(unknown)).toBe(false);
    expect(await store.headsMovedIn(second + 5)).toEqual(new Map());
  });

  it('are not written for a run whose writes do not announce (a JSON run: its followers read it by number)', async () => {
    const quiet = newTrace();
    await store.append(quiet, 0, [thinking]);
    await store.appendOnce(quiet, 1, [{ ...done(quiet), key: 'end:done' }]);
    expect(await store.heads([quiet])).toEqual(new Map());
    expect((await store.read(quiet, 1))?.event).toBe('done');
  });

  it('are purged once their run ended a while ago, or stopped writing before the retention', async () => {
    const [ended, going, stale] = [newTrace(), newTrace(), newTrace()];
    await store.append(ended, 0, [thinking, done(ended)], announced);
    await store.append(going, 0, [thinking], announced);
    await store.append(stale, 0, [thinking], announced);
    const heads = db.collection<{ _id: string; updated_at: Date }>('completion_event_heads');
    await heads.updateOne({ _id: stale }, { $set: { updated_at: new Date(Date.now() - 3_600_000) } });
    // Ended just now: kept while streams may still read its last events.
    await store.purgeBefore(new Date(Date.now() - 60_000), { endedBefore: new Date(Date.now() - 60_000) });
    expect([...(await store.heads([ended, going, stale])).keys()].sort()).toEqual([ended, going].sort());
    await store.purgeBefore(new Date(Date.now() - 60_000), { endedBefore: new Date(Date.now() + 1_000) });
    expect([...(await store.heads([ended, going, stale])).keys()]).toEqual([going]);
    // The ended run's events stay for reconnecting clients (STREAM_RETENTION_HOURS).
    expect((await store.read(ended, 1))?.event).toBe('done');
  });
});
