import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { randomToken } from '../../common/ids';
import type { ReplayPage } from '../../activities/webhooks';
import { replayProgressQuery, webhookReplayWorkflow } from '../../workflows/webhook-replay';
import { eventually } from '../support/consumer';
import { quietTemporalRuntime } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

const delivery = (n: number): ReplayPage['deliveries'][number] => ({
  deliveryId: `dlv_progress${n}`,
  workflowId: `delivery-progress-${n}-${randomToken(8)}`,
  subscriptionId: 'sub_progress',
  envelope: { event_id: `evt_progress${n}` } as never,
});

/** On the local stack's Temporal: its deliveries carry the custom search attributes registered there. */
describe('webhook replay progress', () => {
  let connection: Connection;
  let workerConnection: NativeConnection;
  let client: Client;
  const taskQueue = `replay-progress-${randomToken(8)}`;
  beforeAll(async () => {
    quietTemporalRuntime();
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    workerConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
    client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
    await workerConnection?.close();
  });

  it('answers the deliveries started so far while the replay still runs', async () => {
    let pages = 0;
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      ...suiteWorkflows(),
      activities: {
        // The first page starts three deliveries; the second never comes (a slow database), so the replay stays running.
        prepareReplayPage: async (): Promise<ReplayPage> => {
          pages += 1;
          if (pages === 1)
            return { deliveries: [1, 2, 3].map(delivery), next: { timestamp: '2026-01-01T00:00:00Z', eventId: 'evt_progress3' } };
          return Context.current().cancelled.then(() => ({ deliveries: [] }));
        },
        attemptDelivery: async () => ({ ok: true }),
      },
    });
    await worker.runUntil(async () => {
      const handle = await client.workflow.start(webhookReplayWorkflow, {
        taskQueue,
        workflowId: `replay-progress-${randomToken(8)}`,
        args: [{ replayId: 'rpl_progress', tenantId: 'default', since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z' }],
      });
      const progress = await eventually(async () => {
        const p = await handle.query(replayProgressQuery);
        return p.deliveriesStarted === 3 ? p : undefined;
      });
      expect(progress).toEqual({ deliveriesStarted: 3 });
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test over');
    });
  });
});
