import type { Db, Document, Filter } from 'mongodb';

/** Deleted per batch, and at most this many batches per collection in one maintenance run (the next run goes on). */
const PURGE_BATCH = 500;
const PURGE_BATCHES_PER_RUN = 20;

/**
 * Deletes what matches, a batch of ids at a time, so that one maintenance run stays within its time
 * bound however much there is (FerretDB v1 scans for a range either way; MongoDB walks an index).
 */
async function purgeInBatches(db: Db, collection: string, filter: Filter<Document>): Promise<number> {
  const coll = db.collection(collection);
  let purged = 0;
  for (let i = 0; i < PURGE_BATCHES_PER_RUN; i++) {
    const ids = (
      await coll
        .find(filter, { projection: { _id: 1 } })
        .limit(PURGE_BATCH)
        .toArray()
    ).map((d) => d._id);
    if (ids.length === 0) break;
    purged += (await coll.deleteMany({ _id: { $in: ids } })).deletedCount;
    if (ids.length < PURGE_BATCH) break;
  }
  return purged;
}

/**
 * Webhook deliveries that ended before their retention: delivered ones created before
 * `deliveredBefore`, dead letters created before `deadBefore` (null: kept). A delivery still being
 * attempted is never deleted.
 */
export async function purgeEndedDeliveries(
  db: Db,
  { deliveredBefore, deadBefore }: { deliveredBefore: Date | null; deadBefore: Date | null },
) {
  let purged = 0;
  if (deliveredBefore)
    purged += await purgeInBatches(db, 'webhook_deliveries', { status: 'delivered', created_at: { $lt: deliveredBefore } });
  if (deadBefore) purged += await purgeInBatches(db, 'webhook_deliveries', { status: 'dead', created_at: { $lt: deadBefore } });
  // The dispatcher's claims on first attempts go with the deliveries (long after their events left the dispatch queue).
  const claimsBefore = deliveredBefore ?? deadBefore;
  if (claimsBefore) await purgeInBatches(db, 'webhook_delivery_claims', { created_at: { $lt: claimsBefore } });
  return purged;
}

/** Events of the log (GET /v1/events, time-range replays) that happened before `before`. */
export async function purgeLoggedEventsBefore(db: Db, before: Date): Promise<number> {
  return purgeInBatches(db, 'events', { timestamp: { $lt: before } });
}
