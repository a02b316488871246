import { ApplicationFailure, CancellationScope, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ownTimeBoundReached } from './own-time-bound';

const {
  sweepOutboxes,
  purgeExpiredRateCounters,
  purgeExpiredStreamEvents,
  purgeExpiredInboundEvents,
  purgeExpiredIdempotencyKeys,
  purgeExpiredDeliveries,
  purgeExpiredLoggedEvents,
} = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export interface MaintenanceResult {
  eventsRecovered: number;
  rateCountersPurged: number;
  streamEventsPurged: number;
  inboundEventsPurged: number;
  idempotencyKeysPurged: number;
  /** Absent in results of runs from before list retention. */
  deliveriesPurged?: number;
  loggedEventsPurged?: number;
}

/**
 * A run ends before the next is due (every minute; an overlapping one is skipped). Whatever was
 * cut short is idempotent work the next run does again.
 */
export const MAINTENANCE_RUN_BOUND_MS = 45_000;
/** Patch id of the run's own time bound. */
const RUN_TIME_BOUND = 'maintenance-run-time-bound';
/** Patch id of the idempotency-key purge: histories of runs from before it have no such activity. */
const IDEMPOTENCY_KEY_PURGE = 'idempotency-key-purge';
/** Patch id of the retention purges of webhook deliveries and logged events. */
const LIST_RETENTION_PURGE = 'list-retention-purge';
const MAINTENANCE_TIMED_OUT = 'MaintenanceTimedOut';

/** Run every minute by the `combo-maintenance` Schedule: housekeeping the database cannot do itself. */
export async function maintenanceWorkflow(): Promise<MaintenanceResult> {
  const work = async (): Promise<MaintenanceResult> => {
    const eventsRecovered = await sweepOutboxes();
    const rateCountersPurged = await purgeExpiredRateCounters();
    const streamEventsPurged = await purgeExpiredStreamEvents();
    const inboundEventsPurged = await purgeExpiredInboundEvents();
    const idempotencyKeysPurged = patched(IDEMPOTENCY_KEY_PURGE) ? await purgeExpiredIdempotencyKeys() : 0;
    const result = { eventsRecovered, rateCountersPurged, streamEventsPurged, inboundEventsPurged, idempotencyKeysPurged };
    if (!patched(LIST_RETENTION_PURGE)) return result;
    const deliveriesPurged = await purgeExpiredDeliveries();
    const loggedEventsPurged = await purgeExpiredLoggedEvents();
    return { ...result, deliveriesPurged, loggedEventsPurged };
  };
  // Runs started before the bound existed have no timer in their history.
  if (!patched(RUN_TIME_BOUND)) return work();
  try {
    return await CancellationScope.withTimeout(MAINTENANCE_RUN_BOUND_MS, work);
  } catch (err) {
    if (ownTimeBoundReached(err)) {
      // The run's record is its workflow's failure, the reason in its message.
      throw ApplicationFailure.create({
        message: `the maintenance run did not finish within its time bound (${MAINTENANCE_RUN_BOUND_MS} ms)`,
        type: MAINTENANCE_TIMED_OUT,
        nonRetryable: true,
      });
    }
    throw err;
  }
}
