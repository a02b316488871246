import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createLogger } from '../../common/logger';
import { createSecretBox } from '../../stores/secret-box';
import { createWebhookStore } from '../../stores/webhooks';
import { createCostStore } from '../../stores/costs';
import { createEventLog } from '../../stores/event-log';
import { createEventDispatcher } from '../../workers/event-dispatcher';
import { createPollLoop } from '../../workers/poll-loop';
import { activityDepsFromConfig } from '../../workers/activity-deps';
import { createWorker } from '../../workers/worker';
import type { TestApi } from './api';
import { quietTemporalRuntime } from './temporal';

/** The real worker (and, unless told otherwise, the event dispatcher) on the dev server, for one test API. */
export async function startTestWorker(api: TestApi, { dispatcher = true, ingestBatchSize }: { dispatcher?: boolean; ingestBatchSize?: number } = {}) {
  quietTemporalRuntime();
  const nativeConnection = await NativeConnection.connect({ address: api.config.TEMPORAL_ADDRESS });
  const connection = await Connection.connect({ address: api.config.TEMPORAL_ADDRESS });
  const client = new Client({ connection, namespace: api.config.TEMPORAL_NAMESPACE });
  const secrets = createSecretBox(api.config.SECRETS_ENCRYPTION_KEY);
  const worker: Worker = await createWorker({
    connection: nativeConnection,
    namespace: api.config.TEMPORAL_NAMESPACE,
    taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    activities: activityDepsFromConfig(
      { ...api.config, ALLOW_PRIVATE_URLS: true, INGEST_BATCH_SIZE: ingestBatchSize ?? api.config.INGEST_BATCH_SIZE },
      api.services.mongo.db,
      api.services.es,
    ),
  });
  const running = worker.run();
  const dispatch = createEventDispatcher({
    db: api.services.mongo.db,
    webhooks: createWebhookStore(api.services.mongo.db, secrets),
    client,
    taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    intervalMs: 50,
    log: createLogger('silent', 'test'),
  });
  const dispatching = dispatcher ? dispatch.start() : Promise.resolve();
  const costs = createCostStore(api.services.mongo.db, createEventLog(api.services.mongo.db), { defaultThresholdTokens: api.config.COST_THRESHOLD_TOKENS });
  const costAggregator = createPollLoop('cost aggregation', () => costs.foldQueued(), { intervalMs: 50, batchSize: 200, log: createLogger('silent', 'test') });
  const aggregating = costAggregator.start();
  return {
    client,
    dispatcher: dispatch,
    async stop() {
      dispatch.stop();
      costAggregator.stop();
      await Promise.all([dispatching, aggregating]);
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
    },
  };
}
