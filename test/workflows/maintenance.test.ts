import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { maintenanceWorkflow } from '../../workflows/maintenance';
import { quietTemporalRuntime, timeSkippingEnvironment } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

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
      | 'sweepOutboxes'
      | 'purgeExpiredRateCounters'
      | 'purgeExpiredStreamEvents'
      | 'purgeExpiredInboundEvents'
      | 'purgeExpiredIdempotencyKeys'
      | 'purgeExpiredDeliveries'
      | 'purgeExpiredLoggedEvents'
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
      async purgeExpiredIdempotencyKeys() {
        return 6;
      },
      async purgeExpiredDeliveries() {
        return 5;
      },
      async purgeExpiredLoggedEvents() {
        return 8;
      },
    };
    const taskQueue = `maintenance-${failures}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      ...suiteWorkflows(),
      activities,
    });
    const result = worker.runUntil(
      env.client.workflow.execute(maintenanceWorkflow, { taskQueue, workflowId: `maintenance-retry-${failures}` }),
    );
    return { result, calls: () => calls };
  }

  it('rides out four transient failures', async () => {
    const run = await runWithSweepFailing(4);
    await expect(run.result).resolves.toEqual({
      eventsRecovered: 3,
      rateCountersPurged: 7,
      streamEventsPurged: 2,
      inboundEventsPurged: 4,
      idempotencyKeysPurged: 6,
      deliveriesPurged: 5,
      loggedEventsPurged: 8,
    });
    expect(run.calls()).toBe(5);
  });

  it('fails the run after the fifth failed attempt', async () => {
    const run = await runWithSweepFailing(5);
    await expect(run.result).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(run.calls()).toBe(5);
  });
});

/**
 * Runs in flight when a worker with the idempotency-key purge starts replay their history: recorded
 * by the code before it (test/fixtures/workflows), it must replay without a nondeterminism error.
 */
describe('maintenanceWorkflow histories from before the idempotency-key purge', () => {
  it('replay unchanged (the purge is behind a patch)', async () => {
    quietTemporalRuntime();
    const history = JSON.parse(
      readFileSync(join(__dirname, '..', 'fixtures', 'workflows', 'maintenance-before-idempotency-key-purge.json'), 'utf8'),
    ) as { events: { eventId: string | number }[] };
    // Kept in the protobuf object form (64-bit integers as text, bytes as base64), which the replayer
    // encodes as it is; an event id given as text would send it through the JSON-format reader instead.
    for (const event of history.events) event.eventId = Number(event.eventId);
    await expect(Worker.runReplayHistory(suiteWorkflows(), history)).resolves.toBeUndefined();
  });
});
