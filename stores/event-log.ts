import type { Collection, Db, Filter, OptionalUnlessRequiredId } from 'mongodb';
import type { EventName, EventRecord } from '../common/events';
import { isDuplicateKey } from './mongo';
import { dateRange, findPage, type PageRequest } from './pagination';

/**
 * The internal event log. An action and its event are written in one single-document write: the
 * event rides in the changed document's `outbox` array, then is copied into `events` and pulled
 * from the outbox. A process dying in between leaves the event in the outbox, where the sweeper
 * finds it. Event ids are derived from the fact they describe, so a copy made twice (or an action
 * raced on a store without atomic compare-and-set, like FerretDB v1) is recorded once.
 */
export interface EventDoc extends Omit<EventRecord, 'event_id' | 'timestamp'> {
  _id: string;
  timestamp: Date;
}

/**
 * An event the webhook dispatcher has not handled yet, as a whole copy, deleted once handled. Kept
 * apart and complete so the poll touches only this small collection: FerretDB v1 answers `$in` and
 * sorted reads by scanning, which over a growing event log would slow every dispatch.
 */
export type DispatchQueueDoc = EventDoc;

export interface OutboxHolder {
  _id: string;
  outbox: EventRecord[];
}

/** Collections whose documents may carry an outbox; the sweeper visits each. */
const OUTBOX_COLLECTIONS = ['sessions'] as const;
export type OutboxCollection = (typeof OUTBOX_COLLECTIONS)[number];

export const presentEvent = (doc: EventDoc): EventRecord => ({
  event_id: doc._id,
  event: doc.event,
  tenant_id: doc.tenant_id,
  timestamp: doc.timestamp.toISOString(),
  data: doc.data,
});

export function createEventLog(db: Db) {
  const events = db.collection<EventDoc>('events');
  const dispatchQueue = db.collection<DispatchQueueDoc>('event_dispatch_queue');

  /**
   * Records events and queues them for dispatch; both writes ignore what already exists, so a
   * repeated append (a sweep after a crash) changes nothing but a lost queue entry.
   */
  async function appendMany(records: EventRecord[]): Promise<void> {
    if (records.length === 0) return;
    const insertNew = async <T extends { _id: string }>(collection: Collection<T>, docs: T[]) => {
      try {
        await collection.insertMany(docs as OptionalUnlessRequiredId<T>[], { ordered: false });
      } catch (err) {
        const writeErrors = (err as { writeErrors?: Array<{ code: number }> }).writeErrors;
        if (!(isDuplicateKey(err) && (!writeErrors || writeErrors.every((e) => e.code === 11000)))) throw err;
      }
    };
    const docs = records.map((r) => ({
      _id: r.event_id,
      event: r.event,
      tenant_id: r.tenant_id,
      timestamp: new Date(r.timestamp),
      data: r.data,
    }));
    // Side by side: both writes are idempotent, and a queued copy is whole, so the dispatcher never
    // needs the log entry to exist first.
    await Promise.all([
      insertNew(events, docs),
      insertNew(
        dispatchQueue,
        docs.map((d) => ({ ...d })),
      ),
    ]);
  }

  /** Copies a document's outbox events into the log, then removes them from the outbox. */
  async function flush(collection: OutboxCollection, docId: string, records: EventRecord[]): Promise<void> {
    await appendMany(records);
    // Exact-value $pullAll: FerretDB v1 ignores $pull with a condition.
    if (records.length > 0) {
      await db.collection<OutboxHolder>(collection).updateOne({ _id: docId }, { $pullAll: { outbox: records } });
    }
  }

  /** Finds outboxes left behind by a process that died mid-action and flushes them. */
  async function sweep(): Promise<number> {
    let flushed = 0;
    for (const name of OUTBOX_COLLECTIONS) {
      const stranded = await db
        .collection<OutboxHolder>(name)
        .find({ 'outbox.0': { $exists: true } }, { projection: { outbox: 1 } })
        .limit(500)
        .toArray();
      for (const doc of stranded) {
        await flush(name, doc._id, doc.outbox);
        flushed += doc.outbox.length;
      }
    }
    return flushed;
  }

  /** The tenant's events, newest first, optionally of one name and within [since, until). */
  function list(tenantId: string, query: PageRequest & { event?: EventName; since?: string; until?: string }) {
    const filter: Filter<EventDoc> = { tenant_id: tenantId };
    if (query.event) filter.event = query.event;
    const timestamp = dateRange(query);
    if (timestamp) filter.timestamp = timestamp;
    return findPage(events, filter, query, presentEvent, { timestamp: -1, _id: -1 });
  }

  /**
   * Up to `limit` of the tenant's events in [since, until), oldest first, after `after` (the last
   * event of the previous page), optionally of some names only.
   */
  async function range(
    tenantId: string,
    {
      since,
      until,
      names,
      after,
      limit,
    }: { since: string; until: string; names?: string[]; after?: { timestamp: string; eventId: string }; limit: number },
  ): Promise<EventDoc[]> {
    return events
      .find({
        tenant_id: tenantId,
        timestamp: { $gte: new Date(since), $lt: new Date(until) },
        ...(names ? { event: { $in: names as EventName[] } } : {}),
        ...(after
          ? {
              $or: [
                { timestamp: { $gt: new Date(after.timestamp) } },
                { timestamp: new Date(after.timestamp), _id: { $gt: after.eventId } },
              ],
            }
          : {}),
      })
      .sort({ timestamp: 1, _id: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * Events not dispatched yet, in the store's natural order (roughly oldest first). No sort: FerretDB
   * v1 sorts by scanning, and every queued event is handled anyway.
   */
  const undispatched = (limit: number): Promise<DispatchQueueDoc[]> => dispatchQueue.find({}).limit(limit).toArray();

  async function markDispatched(eventIds: string[]): Promise<void> {
    if (eventIds.length > 0) await dispatchQueue.deleteMany({ _id: { $in: eventIds } });
  }

  const has = async (eventId: string): Promise<boolean> => (await events.findOne({ _id: eventId }, { projection: { _id: 1 } })) !== null;

  return { appendMany, flush, sweep, has, list, range, undispatched, markDispatched };
}

export type EventLog = ReturnType<typeof createEventLog>;
