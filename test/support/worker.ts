import { Client as EsClient } from '@elastic/elasticsearch';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { temporalConnectionOptions } from '../../common/backend-connections';
import type { Config } from '../../common/config';
import { createLogger } from '../../common/logger';
import { temporalDataConverter } from '../../common/temporal-data-converter';
import { composeWorker } from '../../workers/composition';
import { createQueueWorkers, queuesToPoll } from '../../workers/worker';
import type { TestApi } from './api';
import { quietTemporalRuntime } from './temporal';
import { suiteWorkflowBundlePath } from './workflow-bundle';

interface TestWorkerOptions {
  dispatcher?: boolean;
  ingestBatchSize?: number;
  /** Elasticsearch as this worker reaches it (another address than the API's: a delaying proxy). */
  elasticsearchUrl?: string;
  maxHeartbeatThrottleMs?: number;
  /** Settings of this worker other than the API's: its task queues (WORKER_TASK_QUEUES, names, slots), ... */
  config?: Partial<Config>;
}

/** The real worker (and, unless told otherwise, the event dispatcher) on the dev server, for one test API. */
export async function startTestWorker(
  api: TestApi,
  { dispatcher = true, ingestBatchSize, elasticsearchUrl, maxHeartbeatThrottleMs, config: own = {} }: TestWorkerOptions = {},
) {
  quietTemporalRuntime();
  const nativeConnection = await NativeConnection.connect(temporalConnectionOptions(api.config));
  const connection = await Connection.connect(temporalConnectionOptions(api.config));
  // As the worker process: the API's payload keys, if it has any.
  const dataConverter = temporalDataConverter(api.config);
  const client = new Client({ connection, namespace: api.config.TEMPORAL_NAMESPACE, dataConverter });
  const ownEs = elasticsearchUrl ? new EsClient({ node: elasticsearchUrl, requestTimeout: 30_000 }) : undefined;
  const config: Config = {
    ...api.config,
    ALLOW_PRIVATE_URLS: true,
    INGEST_BATCH_SIZE: ingestBatchSize ?? api.config.INGEST_BATCH_SIZE,
    ...own,
  };
  const composed = composeWorker({
    config,
    log: createLogger('silent', 'test'),
    db: api.services.mongo.db,
    es: ownEs ?? api.services.es,
    temporal: client,
    pollIntervalsMs: { dispatch: 50, costs: 50 },
  });
  // Every task queue of the API's configuration (or those `config` names), as the worker process polls them.
  const worker = await createQueueWorkers({
    connection: nativeConnection,
    namespace: api.config.TEMPORAL_NAMESPACE,
    queues: queuesToPoll(config),
    activities: composed.activities,
    maxHeartbeatThrottleMs,
    dataConverter,
    // The suite's bundle (globalSetup): a worker starts in well under a second rather than bundling again.
    workflowBundlePath: suiteWorkflowBundlePath(),
  });
  const running = worker.run();
  // As the worker process: the dispatcher only where the delivery queue is polled.
  const dispatching = dispatcher && composed.dispatcher ? composed.dispatcher.start() : Promise.resolve();
  const aggregating = composed.costAggregator.start();
  return {
    client,
    /** Activities this worker is running now (a cancelled one counts until it has returned). */
    inFlightActivities: worker.inFlightActivities,
    dispatcher: {
      dispatchOnce: composed.dispatchOnce,
      stop: () => composed.dispatcher?.stop(),
    },
    async stop() {
      composed.dispatcher?.stop();
      composed.costAggregator.stop();
      await Promise.all([dispatching, aggregating]);
      worker.shutdown();
      await running;
      await composed.close();
      await nativeConnection.close();
      await connection.close();
      await ownEs?.close();
    },
  };
}
