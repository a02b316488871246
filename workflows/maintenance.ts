import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { sweepOutboxes, purgeExpiredRateCounters, purgeExpiredStreamEvents, purgeExpiredInboundEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export interface MaintenanceResult {
  eventsRecovered: number;
  rateCountersPurged: number;
  streamEventsPurged: number;
  inboundEventsPurged: number;
}

/** Run every minute by the `combo-maintenance` Schedule: housekeeping the database cannot do itself. */
export async function maintenanceWorkflow(): Promise<MaintenanceResult> {
  const eventsRecovered = await sweepOutboxes();
  const rateCountersPurged = await purgeExpiredRateCounters();
  const streamEventsPurged = await purgeExpiredStreamEvents();
  const inboundEventsPurged = await purgeExpiredInboundEvents();
  return { eventsRecovered, rateCountersPurged, streamEventsPurged, inboundEventsPurged };
}
