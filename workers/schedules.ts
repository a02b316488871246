import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { SYSTEM_TENANT, TenantId, TraceId } from '../common/search-attributes';
import { MAINTENANCE_RUN_BOUND_MS, maintenanceWorkflow } from '../workflows/maintenance';

export const MAINTENANCE_SCHEDULE_ID = 'combo-maintenance';

/**
 * A backstop only: the run's own timer (MAINTENANCE_RUN_BOUND_MS) ends it first; this one still
 * ends it before the next run is due.
 */
export const MAINTENANCE_BACKSTOP_MS = MAINTENANCE_RUN_BOUND_MS + 10_000;

/**
 * Creates the installation's own Schedules once; a running one is left as it is, but for the
 * backstop that schedules created before it existed lack.
 */
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
        workflowExecutionTimeout: MAINTENANCE_BACKSTOP_MS,
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
    const handle = client.schedule.getHandle(MAINTENANCE_SCHEDULE_ID);
    const { action } = await handle.describe();
    if (action.type === 'startWorkflow' && action.workflowExecutionTimeout === undefined) {
      await handle.update((previous) => ({ ...previous, action: { ...previous.action, workflowExecutionTimeout: MAINTENANCE_BACKSTOP_MS } }));
    }
  }
}
