import { NativeConnection, Worker } from '@temporalio/worker';
import type { Db } from 'mongodb';
import { createActivities } from '../activities';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Db;
  /** A pre-built workflow bundle (production); otherwise the workflows folder is bundled at start. */
  workflowBundlePath?: string;
}

/** Registers every workflow and activity on one task queue. */
export function createWorker({ connection, namespace, taskQueue, db, workflowBundlePath }: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    activities: createActivities({ db }),
    ...(workflowBundlePath
      ? { workflowBundle: { codePath: workflowBundlePath } }
      : { workflowsPath: require.resolve('../workflows') }),
  });
}
