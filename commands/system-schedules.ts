import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { MAINTENANCE_SCHEDULE_ID } from '../common/workflow-ids';
import { MAINTENANCE_BACKSTOP_MS, maintenanceAction } from './workflow-starts';

/**
 * Creates the installation's own Schedules once; a running one is left as it is, but for the
 * backstop that schedules created before it existed lack.
 */
export async function ensureSystemSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: MAINTENANCE_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 minute' }] },
      action: maintenanceAction(taskQueue),
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      memo: { purpose: 'records interrupted outbox events, purges expired rate-limit counters' },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    const handle = client.schedule.getHandle(MAINTENANCE_SCHEDULE_ID);
    const { action } = await handle.describe();
    if (action.type === 'startWorkflow' && action.workflowExecutionTimeout === undefined) {
      await handle.update((previous) => ({
        ...previous,
        action: { ...previous.action, workflowExecutionTimeout: MAINTENANCE_BACKSTOP_MS },
      }));
    }
  }
}
