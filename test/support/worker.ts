import { Client as EsClient } from '@elastic/elasticsearch';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { temporalConnectionOptions } from '../../common/backend-connections';
import { createLogger } from '../../common/logger';
import { composeWorker } from '../../workers/composition';
import { createWorker } from '../../workers/worker';
import type { TestApi } from './api';
import { quietTemporalRuntime } from './temporal';
import { suiteWorkflowBundlePath } from './workflow-bundle';

interface TestWorkerOptions {
  dispatcher?: boolean;
  ingestBatchSize?: number;
  /** Elasticsearch as this worker reaches it (another address than the API's: a delaying proxy). */
  elasticsearchUrl?: string;
  maxHeartbeatThrottleMs?: number;
}

/** The real worker (and, unless told otherwise, the event dispatcher) on the dev server, for one test API. */
export async function startTestWorker(
  api: TestApi,
  { dispatcher = true, ingestBatchSize, elasticsearchUrl, maxHeartbeatThrottleMs }: TestWorkerOptions = {},
) {
  quietTemporalRuntime();
  const nativeConnection = await NativeConnection.connect(temporalConnectionOptions(api.config));
  const connection = await Connection.connect(temporalConnectionOptions(api.config));
  const client = new Client({ connection, namespace: api.config.TEMPORAL_NAMESPACE });
  const ownEs = elasticsearchUrl ? new EsClient({ node: elasticsearchUrl, requestTimeout: 30_000 }) : undefined;
  const composed = composeWorker({
    config: { ...api.config, ALLOW_PRIVATE_URLS: true, INGEST_BATCH_SIZE: ingestBatchSize ?? api.config.INGEST_BATCH_SIZE },
    log: createLogger('silent', 'test'),
    db: api.services.mongo.db,
    es: ownEs ?? api.services.es,
    temporal: client,
    pollIntervalsMs: { dispatch: 50, costs: 50 },
  });
  const worker: Worker = await createWorker({
    connection: nativeConnection,
    namespace: api.config.TEMPORAL_NAMESPACE,
    taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    activities: composed.activities,
    maxHeartbeatThrottleMs,
    // The suite's bundle (globalSetup): a worker starts in well under a second rather than bundling again.
    workflowBundlePath: suiteWorkflowBundlePath(),
  });
  const running = worker.run();
  const dispatching = dispatcher ? composed.dispatcher.start() : Promise.resolve();
  const aggregating = composed.costAggregator.start();
  return {
    client,
    /** Activities this worker is running now (a cancelled one counts until it has returned). */
    inFlightActivities: () => worker.getStatus().numInFlightActivities,
    dispatcher: {
      dispatchOnce: composed.dispatchOnce,
      stop: () => composed.dispatcher.stop(),
    },
    async stop() {
      composed.dispatcher.stop();
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
