import type { Db } from 'mongodb';

/** Deletes rate counters of windows that ended: FerretDB has no TTL indexes, so maintenance does it. */
export async function purgeExpiredRateCounters(db: Db, now = new Date()): Promise<number> {
  const { deletedCount } = await db.collection('rate_limits').deleteMany({ expires_at: { $lt: now } });
  return deletedCount;
}
