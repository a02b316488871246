import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './mongo';

import type { StreamEventData, StreamEventName } from '../common/schemas/stream-events';

/** One stream event, its data typed by its name (the schemas the OpenAPI document publishes). */
export type StreamEvent = { [K in StreamEventName]: { event: K; data: StreamEventData[K] } }[StreamEventName];

/** Who may read a run's stream, and which workflow produces it; carried by event 0. */
export interface RunOwner {
  tenant_id: string;
  session_id: string;
  agent_id: string;
  workflow_id: string;
  run_id: string;
}

interface RunEventDoc {
  _id: string;
  event: StreamEventName;
  data: StreamEvent['data'];
  trace_id: string;
  seq: number;
  created_at: Date;
  owner?: RunOwner;
  /** What the event is within its run (`end:done`), for events a run writes once: see appendOnce. */
  key?: string;
}

/**
 * A run's head: the number after its latest event, and its latest events (those its writer's
 * process wrote, when they are small), so that a reader learns from one query for all the runs it follows which of them moved on
 * (and usually gets their new events with it) instead of asking each run for its next event. One a
 * run, written after the events it announces; the maintenance run removes it soon after the run ends.
 */
type CarriedEvent = Omit<RunEventDoc, '_id' | 'trace_id' | 'key'>;

interface RunEventHeadDoc {
  _id: string;
  next: number;
  events: CarriedEvent[];
  updated_at: Date;
  /** The second (by the writer's clock, headMoveSecond) of the head's latest move. */
  moved: number;
  /** The run's `done` is written: nothing follows it. */
  ended_at?: Date;
}

/** A run's head as read: the number after its latest event, and the latest write's events (none when they were large). */
export interface RunEventHead {
  next: number;
  events: StoredStreamEvent[];
}

/** A head carries up to this many of the run's latest events (that its writer's process wrote)... */
const HEAD_EVENTS = 8;
/** ... and up to this size of them (JSON characters), the oldest left out first. */
const HEAD_EVENTS_MAX_CHARS = 16_384;
/** Runs whose latest events a process remembers for their heads (the longest unwritten forgotten first). */
const RECENT_RUNS = 1_000;
/** Tries of a head's move after its events were stored, HEAD_MOVE_RETRY_MS × the try apart. */
const HEAD_MOVE_ATTEMPTS = 3;
const HEAD_MOVE_RETRY_MS = 100;
/** Heads asked for in one query (the `$in` list of one command). */
const HEADS_PER_QUERY = 1_000;

/**
 * The second a head moved in, as its `moved` field holds it: readers ask for the heads that moved
 * in a second by equality, which FerretDB hands to PostgreSQL (a `$in` of run ids it scans in Go).
 */
export const headMoveSecond = (ms: number) => Math.floor(ms / 1_000);

/** How a write of a run's events is made. */
export interface AppendOptions {
  /** Carried by the first event: who may read the stream. */
  owner?: RunOwner;
  /** The events' timestamp (now by default). */
  recordedAt?: Date;
  /**
   * The write moves the run's head, so that readers following heads learn of it. Every write of a
   * run must say the same: a streamed or background run announces (its followers are expected and
   * many), a JSON run does not (its rare followers read it event by event, as runs without a head),
   * so its reply does not wait for head updates.
   */
  announce?: boolean;
}

/** A stream event a run writes once, named by `key` (unique within the run). */
export type KeyedStreamEvent = StreamEvent & { key: string };

/** Stream event ids as the client sees them (`id:` lines and Last-Event-ID): `<trace_id>:<seq>`. */
export const streamEventId = (traceId: string, seq: number) => `${traceId}:${seq}`;

export function parseStreamEventId(text: string): { traceId: string; seq: number } | null {
  const match = /^(trc_[A-Za-z0-9]{1,64}):(\d{1,6})$/.exec(text.trim());
  return match ? { traceId: match[1]!, seq: Number(match[2]) } : null;
}

/** An event as read back: its number and when it was recorded; event 0 also names the run's owner. */
export type StoredStreamEvent = StreamEvent & { seq: number; recordedAt: Date; owner?: RunOwner };

// Written by append from a StreamEvent, so name and data belong together.
const storedEvent = (doc: Pick<RunEventDoc, 'event' | 'data' | 'seq' | 'created_at' | 'owner'>): StoredStreamEvent => ({
  ...({ event: doc.event, data: doc.data } as StreamEvent),
  seq: doc.seq,
  recordedAt: doc.created_at,
  ...(doc.owner ? { owner: doc.owner } : {}),
});

const headOf = (doc: RunEventHeadDoc): RunEventHead => ({ next: doc.next, events: doc.events.map(storedEvent) });

const docId = (traceId: string, seq: number) => `${traceId}:${String(seq).padStart(6, '0')}`;

/**
 * A completion's stream events, one document each under `<trace_id>:<seq>`, numbered without gaps
 * from 0. Readers follow the numbers with lookups by `_id` (cheap on every MongoDB-protocol store,
 * unlike range scans on FerretDB), so any API process can serve or resume any stream.
 *
 * Writers never overwrite: an insert that finds its number taken (a retried activity whose earlier
 * attempt already wrote, or an attempt still running after its timeout) moves to the next free
 * number. Every event is therefore read at most once and none is lost; events of a retried attempt
 * follow those of the earlier one.
 */
export function createRunEventStore(db: Db) {
  const events = db.collection<RunEventDoc>('completion_events');
  const heads = db.collection<RunEventHeadDoc>('completion_event_heads');

  /**
   * The latest events this process wrote of each run it writes, for the run's head: a reader that
   * missed a write or two between its ticks finds them there rather than reading them one by one.
   * Bounded (RECENT_RUNS runs, HEAD_EVENTS events each); a run is forgotten once it ends.
   */
  const recent = new Map<string, CarriedEvent[]>();
  function remember(traceId: string, written: CarriedEvent[], ended: boolean): CarriedEvent[] {
    const latest = [...(recent.get(traceId) ?? []), ...written].slice(-HEAD_EVENTS);
    recent.delete(traceId);
    if (ended) return latest;
    recent.set(traceId, latest);
    if (recent.size > RECENT_RUNS) recent.delete(recent.keys().next().value!);
    return latest;
  }

  /**
   * Moves the run's head to `next` with the events just written (`ended`: the batch holds the run's
   * `done`, written now or by an earlier attempt). A head already further on (a
   * concurrent writer of the run that wrote later numbers) is left as it is: the filter does not
   * match it, and the upsert's insert then meets its `_id`.
   */
  async function moveHead(traceId: string, next: number, written: RunEventDoc[], ended: boolean): Promise<void> {
    let carried = remember(
      traceId,
      written.map(({ event, data, seq, created_at, owner }) => ({ event, data, seq, created_at, ...(owner ? { owner } : {}) })),
      ended,
    );
    // The array's JSON length, from each event's once: brackets, and a comma between two events.
    const sizes = carried.map((e) => JSON.stringify(e).length);
    let chars = sizes.reduce((sum, size) => sum + size, 0) + 1 + sizes.length;
    while (carried.length > 0 && chars > HEAD_EVENTS_MAX_CHARS) {
      chars -= sizes.shift()! + 1;
      carried = carried.slice(1);
    }
    const now = new Date();
    try {
      await heads.updateOne(
        { _id: traceId, next: { $lt: next } },
        {
          $set: {
            next,
            events: carried,
            updated_at: now,
            moved: headMoveSecond(now.getTime()),
            ...(ended ? { ended_at: now } : {}),
          },
        },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  /**
   * Writes events from `seq` on; returns the number after the last one written. `recordedAt` (now by
   * default) is their `timestamp`: the API's first events give the request's time, since the run's
   * workflow may write its own before the API's are stored. `announce`: the write moves the run's
   * head (see AppendOptions).
   */
  async function append(
    traceId: string,
    seq: number,
    batch: Array<StreamEvent & { key?: string }>,
    { owner, recordedAt, announce = false }: AppendOptions = {},
  ): Promise<number> {
    let next = seq;
    const written: RunEventDoc[] = [];
    for (const [i, item] of batch.entries()) {
      for (;;) {
        const doc: RunEventDoc = {
          _id: docId(traceId, next),
          trace_id: traceId,
          seq: next,
          event: item.event,
          data: item.data,
          created_at: recordedAt ?? new Date(),
          ...(owner && i === 0 ? { owner } : {}),
          ...(item.key !== undefined ? { key: item.key } : {}),
        };
        try {
          await events.insertOne(doc);
          written.push(doc);
          next++;
          break;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          // A keyed event an earlier attempt wrote lies on this path: every number between `seq` and
          // it was taken when it was written, so it is met here before a free one.
          const writtenBefore =
            item.key !== undefined && (await events.findOne({ _id: docId(traceId, next) }, { projection: { key: 1 } }))?.key === item.key;
          next++;
          if (writtenBefore) break;
        }
      }
    }
    // After the events: a reader that sees the head finds every event it announces. The events are
    // stored: a head that will not move must not fail the write (a caller retrying it would write
    // its unkeyed events again); the run's next write moves it on, carrying these events.
    if (announce && next > seq) {
      const ended = batch.some((item) => item.event === 'done');
      for (let attempt = 1; ; attempt++) {
        try {
          await moveHead(traceId, next, written, ended);
          break;
        } catch {
          if (attempt >= HEAD_MOVE_ATTEMPTS) break;
          await sleep(HEAD_MOVE_RETRY_MS * attempt);
        }
      }
    }
    return next;
  }

  return {
    append,

    /**
     * Writes events a run writes once (its first and last ones) from `seq` on: an event whose key an
     * earlier attempt wrote is not written again, so a retried recording adds no second `done`. Costs
     * nothing over append unless a number is taken. Returns the number after the last one.
     */
    appendOnce: (traceId: string, seq: number, batch: KeyedStreamEvent[], options: AppendOptions = {}) =>
      append(traceId, seq, batch, options),

    async read(traceId: string, seq: number): Promise<StoredStreamEvent | null> {
      const doc = await events.findOne({ _id: docId(traceId, seq) });
      return doc ? storedEvent(doc) : null;
    },

    /**
     * The heads of these runs (those that have one: runs written before heads existed, and runs
     * ended a while ago, have none). One query per HEADS_PER_QUERY runs; on FerretDB the `$in` scans
     * the heads collection, which holds only runs that are going or ended in the last minutes.
     */
    async heads(traceIds: string[]): Promise<Map<string, RunEventHead>> {
      const found = new Map<string, RunEventHead>();
      for (let i = 0; i < traceIds.length; i += HEADS_PER_QUERY) {
        const ids = traceIds.slice(i, i + HEADS_PER_QUERY);
        const docs =
          ids.length === 1
            ? await heads.find({ _id: ids[0]! }).toArray()
            : await heads.find({ _id: { $in: ids } }, { batchSize: ids.length }).toArray();
        for (const doc of docs) found.set(doc._id, headOf(doc));
      }
      return found;
    },

    /**
     * The heads of every run that moved in this second (headMoveSecond), by its writer's clock: one
     * equality query, cheap on FerretDB too (PostgreSQL filters; only those heads are decoded).
     */
    async headsMovedIn(second: number): Promise<Map<string, RunEventHead>> {
      const docs = await heads.find({ moved: second }, { batchSize: 1_000 }).toArray();
      return new Map(docs.map((doc) => [doc._id, headOf(doc)]));
    },

    /**
     * The run's events before `seq`, in order: what a resumed stream needs to know of what its
     * client has (the answer's text so far). One query by `trace_id` equality, which FerretDB hands
     * to its backend, where a range or `$in` on `_id` would scan the collection.
     */
    async readBefore(traceId: string, seq: number): Promise<StoredStreamEvent[]> {
      const docs = await events.find({ trace_id: traceId }).toArray();
      return docs
        .filter((doc) => doc.seq < seq)
        .sort((a, b) => a.seq - b.seq)
        .map(storedEvent);
    },

    /**
     * Removes streams older than `before`, and the heads of runs that ended before `endedBefore` or
     * were last written before `before` (a run that never wrote its `done`) (maintenance). Returns
     * the events removed.
     */
    async purgeBefore(before: Date, { endedBefore }: { endedBefore: Date }): Promise<number> {
      await heads.deleteMany({ $or: [{ ended_at: { $lt: endedBefore } }, { updated_at: { $lt: before } }] });
      const { deletedCount } = await events.deleteMany({ created_at: { $lt: before } });
      return deletedCount;
    },
  };
}

export type RunEventStore = ReturnType<typeof createRunEventStore>;
