import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { SYSTEM_TENANT, TenantId, TraceId } from '../common/search-attributes';
import { maintenanceWorkflow } from '../workflows/maintenance';

export const MAINTENANCE_SCHEDULE_ID = 'combo-maintenance';

/** Creates the installation's own Schedules once; a running one is left as it is. */
export async function ensureSystemSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: MAINTENANCE_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 minute' }] },
      action: {
        type: 'startWorkflow',
        workflowType: maintenanceWorkflow,
        workflowId: 'combo-maintenance-run',
        taskQueue,
        typedSearchAttributes: [
          { key: TenantId, value: SYSTEM_TENANT },
          { key: TraceId, value: MAINTENANCE_SCHEDULE_ID },
        ],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { purpose: 'records interrupted outbox events, purges expired rate-limit counters' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
