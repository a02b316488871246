import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createLogger } from '../../common/logger';
import { createSecretBox } from '../../stores/secret-box';
import { createWebhookStore } from '../../stores/webhooks';
import { createEventDispatcher } from '../../workers/event-dispatcher';
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
  return {
    client,
    dispatcher: dispatch,
    async stop() {
      dispatch.stop();
      await dispatching;
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
    },
  };
}
