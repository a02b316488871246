import type { Db } from 'mongodb';
import { createEventLog } from '../stores/event-log';
import { purgeExpiredRateCounters } from '../stores/rate-limit-purge';

/** Activities that reach MongoDB (or FerretDB) only. */
export function createMongoActivities({ db }: { db: Db }) {
  const eventLog = createEventLog(db);
  return {
    /** Records events whose action was written but whose copy into the log was interrupted. */
    async sweepOutboxes(): Promise<number> {
      return eventLog.sweep();
    },
    async purgeExpiredRateCounters(): Promise<number> {
      return purgeExpiredRateCounters(db);
    },
  };
}
