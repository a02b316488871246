import { Client as EsClient } from '@elastic/elasticsearch';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfigOrExit } from '../common/config';
import { survivePassingFaults } from '../common/crash-guard';
import { createLogger } from '../common/logger';
import { connectMongo, ensureIndexes } from '../stores/mongo';
import { createSecretBox } from '../stores/secret-box';
import { createWebhookStore } from '../stores/webhooks';
import { activityDepsFromConfig } from './activity-deps';
import { createCostStore } from '../stores/costs';
import { createEventLog } from '../stores/event-log';
import { createEventDispatcher } from './event-dispatcher';
import { createPollLoop } from './poll-loop';
import { ensureSystemSchedules } from './schedules';
import { createWorker } from './worker';

const COST_BATCH = 200;

/**
 * config → clients → worker, event dispatcher and cost aggregator; the SDK stops polling on SIGINT/SIGTERM and lets
 * running tasks finish, then the dispatcher stops.
 */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL, 'worker');
  survivePassingFaults(log);
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const es = new EsClient({ node: config.ELASTICSEARCH_URL, requestTimeout: 60_000 });
  try {
    await ensureIndexes(mongo.db);
    const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
    await ensureSystemSchedules(client, config.TEMPORAL_TASK_QUEUE);
    const secrets = createSecretBox(config.SECRETS_ENCRYPTION_KEY);
    const dispatcher = createEventDispatcher({
      db: mongo.db,
      webhooks: createWebhookStore(mongo.db, secrets),
      client,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      intervalMs: config.WEBHOOK_DISPATCH_INTERVAL_MS,
      log,
    });
    const costs = createCostStore(mongo.db, createEventLog(mongo.db), { defaultThresholdTokens: config.COST_THRESHOLD_TOKENS });
    const costAggregator = createPollLoop('cost aggregation', () => costs.foldQueued(COST_BATCH), { intervalMs: config.COST_AGGREGATE_INTERVAL_MS, batchSize: COST_BATCH, log });
    const activities = activityDepsFromConfig(config, mongo.db, es);
    const worker = await createWorker({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      activities,
      workflowBundlePath: config.WORKFLOW_BUNDLE_PATH,
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
    });
    log.info('worker running', { task_queue: config.TEMPORAL_TASK_QUEUE });
    const dispatching = dispatcher.start();
    const aggregating = costAggregator.start();
    await worker.run();
    dispatcher.stop();
    costAggregator.stop();
    await Promise.all([dispatching, aggregating]);
    await activities.knowledge.parsing.close();
    log.info('worker stopped');
  } finally {
    await connection.close();
    await clientConnection.close();
    await es.close();
    await mongo.close();
  }
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${(err as Error).message}\n`);
  process.exit(1);
});
