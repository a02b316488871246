import type { EventLog } from '../stores/event-log';
import type { IdempotencyKeyStore } from '../stores/idempotency-keys';
import type { IntegrationStore } from '../stores/integrations';
import type { RunEventStore } from '../stores/run-events';

export interface MaintenanceActivityDeps {
  eventLog: EventLog;
  runEvents: RunEventStore;
  integrations: IntegrationStore;
  rateCounters: { purgeExpired(): Promise<number> };
  idempotencyKeys: IdempotencyKeyStore;
  streamRetentionHours: number;
  inboundRetentionDays: number;
}

/** Activities that reach MongoDB (or FerretDB) only: the maintenance run's sweeps and purges. */
export function createMongoActivities({
  eventLog,
  runEvents,
  integrations,
  rateCounters,
  idempotencyKeys,
  streamRetentionHours,
  inboundRetentionDays,
}: MaintenanceActivityDeps) {
  return {
    /** Records events whose action was written but whose copy into the log was interrupted. */
    async sweepOutboxes(): Promise<number> {
      return eventLog.sweep();
    },
    async purgeExpiredRateCounters(): Promise<number> {
      return rateCounters.purgeExpired();
    },
    /** Completion stream events past STREAM_RETENTION_HOURS: no client can resume from them any more. */
    async purgeExpiredStreamEvents(): Promise<number> {
      return runEvents.purgeBefore(new Date(Date.now() - streamRetentionHours * 3_600_000));
    },
    /** Received inbound events past INBOUND_EVENT_RETENTION_DAYS. */
    async purgeExpiredInboundEvents(): Promise<number> {
      return integrations.purgeInboundBefore(new Date(Date.now() - inboundRetentionDays * 86_400_000));
    },
    /** Idempotency keys whose window (IDEMPOTENCY_KEY_TTL_HOURS) ended, with the responses kept for them. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return idempotencyKeys.purgeExpired();
    },
  };
}
