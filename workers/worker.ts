import { type NativeConnection, Worker } from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../activities';
import { unstorableTextInterceptors } from './unstorable-text-interceptor';

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: ActivityDeps;
  /** A pre-built workflow bundle (production); otherwise the workflows folder is bundled at start. */
  workflowBundlePath?: string;
  maxCachedWorkflows?: number;
  /**
   * Longest wait before an activity's heartbeat reaches the server (the SDK's default is 80% of the
   * heartbeat timeout); tests shorten it so that a cancellation reaches the activity at its next heartbeat.
   */
  maxHeartbeatThrottleMs?: number;
}

/** Registers every workflow and activity on one task queue. */
export function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
  workflowBundlePath,
  maxCachedWorkflows,
  maxHeartbeatThrottleMs,
}: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
    ...(maxHeartbeatThrottleMs === undefined ? {} : { maxHeartbeatThrottleInterval: maxHeartbeatThrottleMs }),
    activities: createActivities(activities),
    interceptors: { activity: [unstorableTextInterceptors] },
    ...(workflowBundlePath ? { workflowBundle: { codePath: workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
  });
}
