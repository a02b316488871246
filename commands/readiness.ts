import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { Db } from 'mongodb';
import type { Config } from '../common/config';
import { allTaskQueues } from '../common/task-queues';

export interface CheckResult {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = Date.now();
  try {
    await withTimeout(probe(), timeoutMs);
    return { ok: true, latency_ms: Date.now() - started };
  } catch (err) {
    // Only the first line: driver errors can be long, and addresses are the operator's own.
    return { ok: false, latency_ms: Date.now() - started, error: String((err as Error).message ?? err).split('\n')[0] };
  }
}

// Temporal's enum values (temporal.api.enums.v1): TASK_QUEUE_KIND_NORMAL, TASK_QUEUE_TYPE_WORKFLOW / _ACTIVITY.
const NORMAL_QUEUE = 1;
const QUEUE_TYPES = { workflow: 1, activity: 2 } as const;

/**
 * A worker polls the task queue: Temporal lists the pollers it saw, each with its last poll. A worker
 * keeps a long poll open up to a minute, so one counts as polling until WORKER_POLL_STALE_MS after it.
 */
async function workerPolls(temporal: Client, taskQueue: string, staleMs: number): Promise<void> {
  for (const [type, taskQueueType] of Object.entries(QUEUE_TYPES)) {
    const { pollers } = await temporal.workflowService.describeTaskQueue({
      namespace: temporal.options.namespace,
      taskQueue: { name: taskQueue, kind: NORMAL_QUEUE },
      taskQueueType,
    });
    const newest = Math.max(0, ...(pollers ?? []).map((p) => optionalTsToMs(p.lastAccessTime) ?? 0));
    if (Date.now() - newest > staleMs) throw new Error(`no worker polls the ${type} tasks of task queue ${taskQueue}`);
  }
}

/** A worker polls each of the task queues (every group's: some worker process must run each). */
async function workersPollEach(temporal: Client, taskQueues: string[], staleMs: number): Promise<void> {
  await Promise.all(taskQueues.map((taskQueue) => workerPolls(temporal, taskQueue, staleMs)));
}

/**
 * Each backend answers a cheap call (Temporal's system info, a Mongo ping, ES cluster health), and a
 * worker polls each of the service's task queues: without one, no run (or no parse, no delivery) would ever start.
 */
export const createReadinessCheck = ({ temporal, db, es, config }: { temporal: Client; db: Db; es: EsClient; config: Config }) =>
  async function checkBackends(timeoutMs = 2_000) {
    const [t, w, m, e] = await Promise.all([
      check(() => temporal.workflowService.getSystemInfo({}), timeoutMs),
      check(() => workersPollEach(temporal, allTaskQueues(config), config.WORKER_POLL_STALE_MS), timeoutMs),
      check(() => db.command({ ping: 1 }), timeoutMs),
      // The minimal Elasticsearch distribution has no root endpoint, so ping() fails: use cluster health.
      check(() => es.cluster.health({ timeout: `${timeoutMs}ms` }, { requestTimeout: timeoutMs, maxRetries: 0 }), timeoutMs),
    ]);
    return { temporal: t, worker: w, mongodb: m, elasticsearch: e };
  };
