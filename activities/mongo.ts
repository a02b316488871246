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
  retention: {
    purgeEndedDeliveries(before: { deliveredBefore: Date | null; deadBefore: Date | null }): Promise<number>;
    purgeLoggedEventsBefore(before: Date): Promise<number>;
  };
  streamRetentionHours: number;
  inboundRetentionDays: number;
  /** 0: kept (each of them). */
  deliveryRetentionDays: number;
  deadLetterRetentionDays: number;
  eventRetentionDays: number;
}

const DAY_MS = 86_400_000;
/**
 * How long a run's head outlives the run's end: streams of the run still going find its last events
 * there. Heads are the stream readers' one query a tick, so they are kept to the runs going now.
 */
const ENDED_RUN_HEAD_KEEP_MS = 60_000;
/** The instant before which what is `days` old goes; null when `days` is 0 (kept). */
const cutoff = (days: number): Date | null => (days > 0 ? new Date(Date.now() - days * DAY_MS) : null);

/** Activities that reach MongoDB (or FerretDB) only: the maintenance run's sweeps and purges. */
export function createMongoActivities({
  eventLog,
  runEvents,
  integrations,
  rateCounters,
  idempotencyKeys,
  retention,
  streamRetentionHours,
  inboundRetentionDays,
  deliveryRetentionDays,
  deadLetterRetentionDays,
  eventRetentionDays,
}: MaintenanceActivityDeps) {
  return {
    /** Records events whose action was written but whose copy into the log was interrupted. */
    async sweepOutboxes(): Promise<number> {
      return eventLog.sweep();
    },
    async purgeExpiredRateCounters(): Promise<number> {
      return rateCounters.purgeExpired();
    },
    /** Completion stream events past STREAM_RETENTION_HOURS: no client can resume from them any more; heads of ended runs. */
    async purgeExpiredStreamEvents(): Promise<number> {
      return runEvents.purgeBefore(new Date(Date.now() - streamRetentionHours * 3_600_000), {
        endedBefore: new Date(Date.now() - ENDED_RUN_HEAD_KEEP_MS),
      });
    },
    /** Received inbound events past INBOUND_EVENT_RETENTION_DAYS. */
    async purgeExpiredInboundEvents(): Promise<number> {
      return integrations.purgeInboundBefore(new Date(Date.now() - inboundRetentionDays * 86_400_000));
    },
    /** Idempotency keys whose window (IDEMPOTENCY_KEY_TTL_HOURS) ended, with the responses kept for them. */
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return idempotencyKeys.purgeExpired();
    },
    /** Ended webhook deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS / WEBHOOK_DEAD_LETTER_RETENTION_DAYS. */
    async purgeExpiredDeliveries(): Promise<number> {
      const deliveredBefore = cutoff(deliveryRetentionDays);
      const deadBefore = cutoff(deadLetterRetentionDays);
      if (!deliveredBefore && !deadBefore) return 0;
      return retention.purgeEndedDeliveries({ deliveredBefore, deadBefore });
    },
    /** Logged events past EVENT_RETENTION_DAYS. */
    async purgeExpiredLoggedEvents(): Promise<number> {
      const before = cutoff(eventRetentionDays);
      return before ? retention.purgeLoggedEventsBefore(before) : 0;
    },
  };
}
