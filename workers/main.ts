import { temporalDataConverter } from '../common/temporal-data-converter';
import { Client as EsClient } from '@elastic/elasticsearch';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { elasticsearchClientOptions, temporalConnectionOptions } from '../common/backend-connections';
import { loadConfigOrExit } from '../common/config';
import { exitOnUncaughtException, logUnhandledRejections } from '../common/process-faults';
import { createLogger } from '../common/logger';
import { dateUndatedCostRuns } from '../stores/migrations';
import { connectMongo, ensureIndexes } from '../stores/mongo';
import { composeWorker } from './composition';
import { ensureSystemSchedules } from '../commands/system-schedules';
import { type PollingWorker, startHealthServer } from './health-server';
import { watchMemory } from './memory-figures';
import { createQueueWorkers, queuesToPoll } from './worker';

/**
 * config → clients → worker, event dispatcher and cost aggregator; the SDK stops polling on SIGINT/SIGTERM and lets
 * running tasks finish, then the dispatcher stops. An uncaught exception shuts the worker down the same way
 * (worker.shutdown()) and the process exits once it has stopped, or when DRAIN_AFTER_CRASH_MS and the exit's margin are up.
 */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL, 'worker');
  const crash = exitOnUncaughtException(log);
  logUnhandledRejections(log);
  // Up first: an orchestrator sees the process live (and not yet ready) while it connects.
  let polling: () => readonly PollingWorker[] = () => [];
  const memory = watchMemory();
  const health =
    config.WORKER_HEALTH_PORT === undefined
      ? undefined
      : await startHealthServer({
          host: config.WORKER_HEALTH_HOST,
          port: config.WORKER_HEALTH_PORT,
          workers: () => polling(),
          memory: () => memory.figures(),
        });
  if (health) log.info('worker health endpoint listening', { port: health.port });
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config));
  const clientConnection = await Connection.connect(temporalConnectionOptions(config));
  const es = new EsClient(elasticsearchClientOptions(config, 60_000));
  try {
    await ensureIndexes(mongo.db);
    const dataConverter = temporalDataConverter(config);
    const temporal = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
    await ensureSystemSchedules(temporal, config.TEMPORAL_TASK_QUEUE);
    const composed = composeWorker({ config, log, db: mongo.db, es, temporal });
    const queues = queuesToPoll(config);
    const worker = await createQueueWorkers({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      queues,
      activities: composed.activities,
      workflowBundlePath: config.WORKFLOW_BUNDLE_PATH,
      maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
      shutdownGraceMs: config.WORKER_SHUTDOWN_GRACE_MS,
      dataConverter,
    });
    polling = worker.polling;
    log.info('worker running', { task_queues: queues.map((q) => q.taskQueue) });
    const dispatching = composed.dispatcher?.start();
    const aggregating = composed.costAggregator.start();
    // Runs recorded before costs kept their UTC day get it now, in the background: costs by day leave them out until then.
    dateUndatedCostRuns(mongo.db).then(
      (dated) => {
        if (dated > 0) log.info('older cost runs dated', { runs: dated });
      },
      (err: unknown) =>
        log.warn('could not date older cost runs; costs by day leave them out until the next start', { error: String(err) }),
    );
    const running = worker.run();
    crash.drainWith(async () => {
      // A shutdown that a signal started already is the one to wait for.
      if (worker.isRunning()) worker.shutdown();
      await running;
    });
    await running;
    composed.dispatcher?.stop();
    composed.costAggregator.stop();
    await Promise.all([dispatching, aggregating]);
    await composed.close();
    log.info('worker stopped');
  } finally {
    await connection.close();
    await clientConnection.close();
    await es.close();
    await mongo.close();
    await health?.close();
    memory.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${(err as Error).message}\n`);
  process.exit(1);
});
