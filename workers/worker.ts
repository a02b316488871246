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
  /** After shutdown is asked for, how long running activities may finish before they are cancelled (ms). */
  shutdownGraceMs?: number;
  /**
   * Longest wait before an activity's heartbeat reaches the server (default HEARTBEAT_THROTTLE_MS);
   * tests shorten it so that a cancellation reaches the activity at its next heartbeat.
   */
  maxHeartbeatThrottleMs?: number;
}

/**
 * Heartbeats reach Temporal at least this often (without it, every 0.8 × an activity's heartbeat
 * timeout): a cancelled run's model and tool calls hear of it within about this long.
 */
const HEARTBEAT_THROTTLE_MS = 500;

/** Registers every workflow and activity on one task queue. */
export function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
  workflowBundlePath,
  maxCachedWorkflows,
  shutdownGraceMs,
  maxHeartbeatThrottleMs,
}: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
    ...(shutdownGraceMs === undefined ? {} : { shutdownGraceTime: shutdownGraceMs }),
    maxHeartbeatThrottleInterval: maxHeartbeatThrottleMs ?? HEARTBEAT_THROTTLE_MS,
    activities: createActivities(activities),
    interceptors: { activity: [unstorableTextInterceptors] },
    ...(workflowBundlePath ? { workflowBundle: { codePath: workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
  });
}
