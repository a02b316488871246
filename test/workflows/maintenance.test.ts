import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { maintenanceWorkflow } from '../../workflows/maintenance';
import { timeSkippingEnvironment } from '../support/temporal';

/** The maintenance workflow's retry policy on the time-skipping server (back-off 1 s, 2 s, 4 s, 8 s skipped). */
describe('maintenanceWorkflow retry policy', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
  });
  afterAll(() => env?.teardown());

  async function runWithSweepFailing(failures: number) {
    let calls = 0;
    const activities: Pick<
      Activities,
      'sweepOutboxes' | 'purgeExpiredRateCounters' | 'purgeExpiredStreamEvents' | 'purgeExpiredInboundEvents'
    > = {
      async sweepOutboxes() {
        calls += 1;
        if (calls <= failures) throw new Error(`database unavailable (attempt ${calls})`);
        return 3;
      },
      async purgeExpiredRateCounters() {
        return 7;
      },
      async purgeExpiredStreamEvents() {
        return 2;
      },
      async purgeExpiredInboundEvents() {
        return 4;
      },
    };
    const taskQueue = `maintenance-${failures}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowsPath: require.resolve('../../workflows'),
      activities,
    });
    const result = worker.runUntil(
      env.client.workflow.execute(maintenanceWorkflow, { taskQueue, workflowId: `maintenance-retry-${failures}` }),
    );
    return { result, calls: () => calls };
  }

  it('rides out four transient failures', async () => {
    const run = await runWithSweepFailing(4);
    await expect(run.result).resolves.toEqual({ eventsRecovered: 3, rateCountersPurged: 7, streamEventsPurged: 2, inboundEventsPurged: 4 });
    expect(run.calls()).toBe(5);
  });

  it('fails the run after the fifth failed attempt', async () => {
    const run = await runWithSweepFailing(5);
    await expect(run.result).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(run.calls()).toBe(5);
  });
});
