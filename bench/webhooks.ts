import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { randomToken } from '../common/ids';
import { createEventLog } from '../stores/event-log';
import { bareOneActivityWorkflow } from './bare-workflow';
import { envelopePoster, freePort, median, percentile, ratio, residentMiB, startProcess, startServer, stopServer } from './load';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const BASELINE_WORKFLOWS = Number(process.env.BENCH_BASELINE_WORKFLOWS ?? 2_000);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
/** The subscription's `signing` (`standard_webhooks` adds the Standard Webhooks signature to each attempt); the API's default when unset. */
const SIGNING = process.env.BENCH_WEBHOOK_SIGNING;
const MiB = 1024 * 1024;

/** The worker's memory as its health endpoint reports it (workers/memory-figures.ts). */
interface WorkerMemory {
  rss_bytes: number;
  heap_committed_bytes: number;
  heap_after_full_gc_bytes: number | null;
  full_gcs: number;
}

/** A consumer that answers 200 at once and notes when each event id first arrived. */
async function startConsumer() {
  const firstSeen = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { event_id: id, timestamp } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event_id: string; timestamp: string };
      if (!firstSeen.has(id)) firstSeen.set(id, Date.now());
      recordedAt.set(id, Date.parse(timestamp));
      res.writeHead(200).end();
    });
  });
  const recordedAt = new Map<string, number>();
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, firstSeen, recordedAt, close: () => server.close() };
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Completion rate of bare one-activity workflows started concurrently (the Temporal server's own pace). */
async function baselineRate(client: Client, env: NodeJS.ProcessEnv): Promise<number> {
  const taskQueue = `${env.TEMPORAL_TASK_QUEUE}-bare`;
  const worker = await startProcess(join(__dirname, 'bare-worker.js'), { ...env, TEMPORAL_TASK_QUEUE: taskQueue }, 'ready');
  try {
    const run = async (n: number) => {
      const started = Date.now();
      const handles = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          client.workflow.start(bareOneActivityWorkflow, { taskQueue, workflowId: `bench-bare-${randomToken(8)}-${i}` }),
        ),
      );
      await Promise.all(handles.map((h) => h.result()));
      return n / ((Date.now() - started) / 1000);
    };
    await run(50); // warm-up
    return await run(BASELINE_WORKFLOWS);
  } finally {
    await stopServer(worker);
  }
}

/**
 * Outbound webhooks end to end: events recorded in the log, their first attempts made by the
 * worker's dispatcher in batches (a workflow only for a failed first attempt) to a local consumer
 * that answers 200 at once. Baseline in the same run: bare one-activity workflows on the same
 * Temporal server.
 */
export async function benchWebhooks(): Promise<void> {
  const suffix = randomToken(6).toLowerCase();
  const apiPort = await freePort();
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_DB: `bench_wh_${suffix}`,
    TEMPORAL_TASK_QUEUE: `bench-wh-${suffix}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_DISPATCH_INTERVAL_MS: '50',
    BOOTSTRAP_API_KEY: key,
    RATE_LIMIT_DEFAULT_PER_MIN: '100000000',
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    LOG_LEVEL: 'warn',
  };
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  const client = new Client({ connection });
  const mongo = await MongoClient.connect(env.MONGODB_URI!);
  const consumer = await startConsumer();
  const base = `http://127.0.0.1:${apiPort}/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = envelopePoster(base, headers);

  try {
    const baseline = await baselineRate(client, env);

    const api = await startServer(join(__dirname, '..', 'api', 'main.js'), env, `${base}/health`);
    // The worker's health endpoint reports its memory: RSS alone cannot tell growth from garbage awaiting a collection.
    const healthPort = await freePort();
    const worker = await startProcess(
      join(__dirname, '..', 'workers', 'main.js'),
      { ...env, LOG_LEVEL: 'info', WORKER_HEALTH_PORT: String(healthPort), WORKER_HEALTH_HOST: '127.0.0.1' },
      'worker running',
    ).catch(async (err: unknown) => {
      await stopServer(api);
      throw err;
    });
    let workerMemory: WorkerMemory | undefined;
    const readWorkerMemory = () =>
      fetch(`http://127.0.0.1:${healthPort}/live`)
        .then(async (res) => {
          workerMemory = ((await res.json()) as { memory: WorkerMemory }).memory;
        })
        .catch(() => undefined);
    const samples: Array<{ at: number; delivered: number; workerMiB: number; apiMiB: number; worker?: WorkerMemory }> = [];
    const sampler = setInterval(() => {
      samples.push({
        at: Date.now(),
        delivered: consumer.firstSeen.size,
        workerMiB: residentMiB(worker.pid!),
        apiMiB: residentMiB(api.pid!),
        worker: workerMemory,
      });
      void readWorkerMemory();
    }, 250);
    try {
      await post('/webhook/subscriptions', { url: consumer.url, events: ['session.created'], ...(SIGNING ? { signing: SIGNING } : {}) });
      const agent = await post('/combo/agents', { name: 'bench' });
      // Warm-up through the whole path.
      for (let i = 0; i < 20; i++) await post(`/combo/agents/${agent.agent_id}/sessions`, {});
      await waitUntil(() => consumer.firstSeen.size >= 20, 60_000, 'warm-up deliveries');

      // Throughput: EVENTS recorded in the log at once (the path the API records through), as a burst would.
      const warm = consumer.firstSeen.size;
      const eventLog = createEventLog(mongo.db(env.MONGODB_DB));
      const started = Date.now();
      for (let i = 0; i < EVENTS; i += 1000) {
        const timestamp = new Date().toISOString();
        await eventLog.appendMany(
          Array.from({ length: Math.min(1000, EVENTS - i) }, (_, j) => ({
            event_id: `evt_bench${suffix}${i + j}`,
            event: 'session.created' as const,
            tenant_id: 'default',
            timestamp,
            data: { session_id: `ses_bench${i + j}`, tenant_id: 'default', user_id: 'bench' },
          })),
        );
      }
      await waitUntil(() => consumer.firstSeen.size >= warm + EVENTS, 30 * 60_000, 'all deliveries');
      const elapsed = (Date.now() - started) / 1000;
      const deliveryRate = EVENTS / elapsed;
      const burstLatencies = [...consumer.firstSeen.entries()]
        .filter(([id]) => id.startsWith(`evt_bench${suffix}`))
        .map(([id, at]) => at - consumer.recordedAt.get(id)!)
        .sort((a, b) => a - b);

      // Latency when not saturated: sessions created through the API at a steady pace.
      const paced: string[] = [];
      for (let i = 0; i < LATENCY_EVENTS; i++) {
        const session = await post(`/combo/agents/${agent.agent_id}/sessions`, {});
        paced.push(session.session_id!);
        await new Promise((r) => setTimeout(r, 50));
      }
      await waitUntil(() => consumer.firstSeen.size >= warm + EVENTS + LATENCY_EVENTS, 120_000, 'paced deliveries');
      const pacedLatencies = [...consumer.firstSeen.entries()]
        .filter(([id]) => !id.startsWith(`evt_bench${suffix}`))
        .slice(-LATENCY_EVENTS)
        .map(([id, at]) => at - consumer.recordedAt.get(id)!)
        .sort((a, b) => a - b);
      clearInterval(sampler);

      const at = (n: number) => samples.find((s) => s.delivered >= warm + n) ?? samples[samples.length - 1]!;
      const early = samples.filter((s) => s.delivered >= warm + 1000 && s.delivered <= warm + 2000);
      const late = samples.filter((s) => s.delivered >= warm + EVENTS - 1000 && s.delivered <= warm + EVENTS);
      const growth = (from: number, to: number) => `${(((to - from) / from) * 100).toFixed(1)} %`;
      const earlyWorker = median(early.map((s) => s.workerMiB));
      const lateWorker = median(late.map((s) => s.workerMiB));
      const earlyApi = median(early.map((s) => s.apiMiB));
      const lateApi = median(late.map((s) => s.apiMiB));
      const peakWorker = Math.max(...samples.map((s) => s.workerMiB));
      // What the worker's heap keeps: the heap left by its last full collection, where anything held per event
      // (maps, pending promises, listeners) would pile up. RSS also carries the garbage V8 lets build up between
      // full collections, whose amount follows the allocation rate and the collector's timing, not the number of
      // events: RSS sampled at two moments of that cycle moves by tens of percent either way.
      // The memory outside the JS heap (RSS less the heap V8 holds) is printed too; it reads low while
      // committed heap pages are not resident.
      const outsideHeap = (window: typeof samples) =>
        median(window.flatMap(({ worker: m }) => (m ? [(m.rss_bytes - m.heap_committed_bytes) / MiB] : [])));
      const afterFullGc = (window: typeof samples) =>
        median(window.flatMap((s) => s.worker?.heap_after_full_gc_bytes ?? []).map((b) => b / MiB));
      const fullGcs = (window: typeof samples) => {
        const counts = window.flatMap((s) => s.worker?.full_gcs ?? []);
        return counts.length === 0 ? 0 : Math.max(...counts) - Math.min(...counts);
      };
      const burst = samples.filter((s) => s.at >= started && s.delivered <= warm + EVENTS);
      const mib = (n: number) => n.toFixed(1);
      // Without a full collection during the burst both windows read the same one: no measure then, not 0 %.
      // No full collection yet by deliveries 1,000-2,000: the first one after them stands for the early window.
      const firstAfterEarly = samples.find((s) => s.delivered > warm + 2000 && s.worker?.heap_after_full_gc_bytes != null);
      const earlyKept = Number.isNaN(afterFullGc(early)) && firstAfterEarly ? afterFullGc([firstAfterEarly]) : afterFullGc(early);
      const heapKept = fullGcs(burst) === 0 ? 'n/a: no full collection during the burst' : growth(earlyKept, afterFullGc(late));

      console.log(
        `\nwebhooks benchmark: ${EVENTS} events, one subscription (signing: ${SIGNING ?? 'default'}), consumer answering 200 at once`,
      );
      console.log('| measure | value |');
      console.log('|---|---|');
      console.log(
        `| baseline: bare one-activity workflows completed per second (${BASELINE_WORKFLOWS} started concurrently) | ${baseline.toFixed(1)} |`,
      );
      console.log(`| first-attempt deliveries per second (${EVENTS} events recorded at once) | ${deliveryRate.toFixed(1)} |`);
      console.log(`| ratio deliveries / baseline (target >= 3) | ${ratio(deliveryRate, baseline)} |`);
      console.log(
        `| event recorded -> first attempt received, paced ${LATENCY_EVENTS} events via the API: p50 / p99 ms | ${percentile(pacedLatencies, 50)} / ${percentile(pacedLatencies, 99)} |`,
      );
      console.log(
        `| event recorded -> first attempt received, the ${EVENTS}-event burst (includes queueing): p50 / p99 ms | ${percentile(burstLatencies, 50)} / ${percentile(burstLatencies, 99)} |`,
      );
      console.log(
        `| worker RSS MiB, median over deliveries 1,000-2,000 / last 1,000 / peak (garbage awaiting a full collection included) | ${earlyWorker} / ${lateWorker} / ${peakWorker} |`,
      );
      console.log(
        `| worker RSS growth, first 1,000s to last 1,000 (moves with the collector's cycle) | ${growth(earlyWorker, lateWorker)} |`,
      );
      console.log(
        `| worker heap after its last full collection, MiB, same windows (full collections during the burst: ${fullGcs(burst)}; the first after deliveries 2,000 when none came before) | ${mib(earlyKept)} / ${mib(afterFullGc(late))} |`,
      );
      console.log(
        `| worker heap kept: growth of the heap after the last full collection, first 1,000s to last 1,000 (target < 10 %) | ${heapKept} |`,
      );
      console.log(`| worker RSS outside the JS heap, MiB, same windows | ${mib(outsideHeap(early))} / ${mib(outsideHeap(late))} |`);
      console.log(`| API RSS MiB, same windows | ${earlyApi} / ${lateApi} (${growth(earlyApi, lateApi)}) |`);
      console.log(`| samples | ${samples.length} every 250 ms; delivered at first sample past 1,000: ${at(1000).delivered - warm} |`);
    } finally {
      clearInterval(sampler);
      await stopServer(worker);
      await stopServer(api);
    }
  } finally {
    consumer.close();
    await mongo.db(env.MONGODB_DB).dropDatabase();
    await mongo.close();
    await connection.close();
  }
}
