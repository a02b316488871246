import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, type NativeConnection, Worker } from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../activities';
import type { Config } from '../common/config';
import { taskQueueOf, type WorkerSlots, workerSlotsOf } from '../common/task-queues';
import { unstorableTextInterceptors } from './unstorable-text-interceptor';

interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: ActivityDeps;
  /** A pre-built workflow bundle (production); otherwise the workflows folder is bundled at start. */
  workflowBundlePath?: string;
  /** The workflow bundle's code, built once for the several workers of one process (see createQueueWorkers). */
  workflowBundleCode?: string;
  maxCachedWorkflows?: number;
  /** After shutdown is asked for, how long running activities may finish before they are cancelled (ms). */
  shutdownGraceMs?: number;
  /** This queue's worker slots; unset: the SDK's defaults. */
  slots?: WorkerSlots;
  /**
   * Longest wait before an activity's heartbeat reaches the server (default HEARTBEAT_THROTTLE_MS);
   * tests shorten it so that a cancellation reaches the activity at its next heartbeat.
   */
  maxHeartbeatThrottleMs?: number;
  /** Encrypts payloads (common/temporal-data-converter.ts); unset: Temporal's default. */
  dataConverter?: DataConverter;
}

/**
 * Heartbeats reach Temporal at least this often (without it, every 0.8 × an activity's heartbeat
 * timeout): a cancelled run's model and tool calls hear of it within about this long.
 */
const HEARTBEAT_THROTTLE_MS = 500;

/** Registers every workflow and activity on one task queue, with that queue's slots. */
function createWorker({
  connection,
  namespace,
  taskQueue,
  activities,
  workflowBundlePath,
  workflowBundleCode,
  maxCachedWorkflows,
  shutdownGraceMs,
  maxHeartbeatThrottleMs,
  slots,
  dataConverter,
}: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection,
    ...(dataConverter ? { dataConverter } : {}),
    namespace,
    taskQueue,
    ...(maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows }),
    ...(shutdownGraceMs === undefined ? {} : { shutdownGraceTime: shutdownGraceMs }),
    ...(slots
      ? {
          maxConcurrentWorkflowTaskExecutions: slots.maxWorkflowTasks,
          maxConcurrentActivityTaskExecutions: slots.maxActivityTasks,
          maxConcurrentLocalActivityExecutions: slots.maxActivityTasks,
        }
      : {}),
    maxHeartbeatThrottleInterval: maxHeartbeatThrottleMs ?? HEARTBEAT_THROTTLE_MS,
    activities: createActivities(activities),
    interceptors: { activity: [unstorableTextInterceptors] },
    ...(workflowBundleCode !== undefined
      ? { workflowBundle: { code: workflowBundleCode } }
      : workflowBundlePath
        ? { workflowBundle: { codePath: workflowBundlePath } }
        : { workflowsPath: require.resolve('../workflows') }),
  });
}

/** The task queues this process polls (WORKER_TASK_QUEUES), each with its slots. */
export const queuesToPoll = (config: Config) =>
  config.WORKER_TASK_QUEUES.map((group) => ({ group, taskQueue: taskQueueOf(config, group), slots: workerSlotsOf(config, group) }));

export interface QueueWorkersOptions extends Omit<WorkerOptions, 'taskQueue' | 'slots' | 'workflowBundleCode'> {
  /** The task queues to poll, each with its own slots. */
  queues: Array<{ taskQueue: string; slots: WorkerSlots }>;
}

/**
 * One SDK worker per task queue, in one process: each its own slots, every one registering every
 * workflow and activity (work started on a queue before it was split off still finds a worker).
 * Without a pre-built bundle the workflows are bundled once for all of them.
 */
export async function createQueueWorkers({ queues, ...options }: QueueWorkersOptions) {
  const workflowBundleCode =
    options.workflowBundlePath || queues.length < 2
      ? undefined
      : (await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') })).code;
  const workers = await Promise.all(
    queues.map(({ taskQueue, slots }) =>
      createWorker({ ...options, taskQueue, slots, ...(workflowBundleCode === undefined ? {} : { workflowBundleCode }) }),
    ),
  );
  const shutdown = () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    /** Runs them all until each has stopped; one that fails stops the others and its error is thrown. */
    async run(): Promise<void> {
      const ends = await Promise.allSettled(
        workers.map((w) =>
          w.run().catch((err: unknown) => {
            shutdown();
            throw err;
          }),
        ),
      );
      const failed = ends.find((e) => e.status === 'rejected');
      if (failed) throw failed.reason;
    },
    /** Stops polling on every queue; running tasks finish (run() then resolves). */
    shutdown,
    isRunning: () => workers.some((w) => w.getState() === 'RUNNING'),
    /** Each queue's worker as the health endpoint reports it. */
    polling: () => workers.map((w) => ({ taskQueue: w.options.taskQueue, getState: () => w.getState() })),
    /** Activities running now on every queue (a cancelled one counts until it has returned). */
    inFlightActivities: () => workers.reduce((sum, w) => sum + w.getStatus().numInFlightActivities, 0),
  };
}
