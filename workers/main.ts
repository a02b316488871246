import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfigOrExit } from '../common/config';
import { createLogger } from '../common/logger';
import { connectMongo, ensureIndexes } from '../stores/mongo';
import { ensureSystemSchedules } from './schedules';
import { createWorker } from './worker';

/** config → clients → worker; the SDK stops polling on SIGINT/SIGTERM and lets running tasks finish. */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL, 'worker');
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  try {
    await ensureIndexes(mongo.db);
    const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
    await ensureSystemSchedules(client, config.TEMPORAL_TASK_QUEUE);
    const worker = await createWorker({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      db: mongo.db,
      workflowBundlePath: config.WORKFLOW_BUNDLE_PATH,
    });
    log.info('worker running', { task_queue: config.TEMPORAL_TASK_QUEUE });
    await worker.run();
    log.info('worker stopped');
  } finally {
    await connection.close();
    await clientConnection.close();
    await mongo.close();
  }
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${(err as Error).message}\n`);
  process.exit(1);
});
