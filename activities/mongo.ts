import type { Db } from 'mongodb';
import { createEventLog } from '../stores/event-log';
import { purgeExpiredRateCounters } from '../stores/rate-limit-purge';
import { createRunEventStore } from '../stores/run-events';

/** Activities that reach MongoDB (or FerretDB) only. */
export function createMongoActivities({ db, streamRetentionHours, inboundRetentionDays }: { db: Db; streamRetentionHours: number; inboundRetentionDays: number }) {
  const eventLog = createEventLog(db);
  const runEvents = createRunEventStore(db);
  return {
    /** Records events whose action was written but whose copy into the log was interrupted. */
    async sweepOutboxes(): Promise<number> {
      return eventLog.sweep();
    },
    async purgeExpiredRateCounters(): Promise<number> {
      return purgeExpiredRateCounters(db);
    },
    /** Completion stream events past STREAM_RETENTION_HOURS: no client can resume from them any more. */
    async purgeExpiredStreamEvents(): Promise<number> {
      return runEvents.purgeBefore(new Date(Date.now() - streamRetentionHours * 3_600_000));
    },
    /** Received inbound events past INBOUND_EVENT_RETENTION_DAYS. */
    async purgeExpiredInboundEvents(): Promise<number> {
      const { deletedCount } = await db.collection('inbound_events').deleteMany({ received_at: { $lt: new Date(Date.now() - inboundRetentionDays * 86_400_000) } });
      return deletedCount;
    },
  };
}
