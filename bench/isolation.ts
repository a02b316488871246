import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { Agent, request as httpRequest } from 'undici';
import { randomToken } from '../common/ids';
import { createEventLog } from '../stores/event-log';
import { startInstantModel } from './completions';
import { benchServiceEnv, envelopePoster, freePort, percentile, ratio, startProcess, startServer, stopServer } from './load';

/** Events recorded at once for the delivery burst. */
const EVENTS = Number(process.env.BENCH_ISOLATION_EVENTS ?? 10_000);
/** Small documents uploaded for the ingest. */
const DOCUMENTS = Number(process.env.BENCH_ISOLATION_DOCUMENTS ?? 500);
/** Streamed completions measured in each phase, one new session each, started PACE_MS apart. */
const COMPLETIONS = Number(process.env.BENCH_ISOLATION_COMPLETIONS ?? 20);
const PACE_MS = Number(process.env.BENCH_ISOLATION_PACE_MS ?? 250);
/** The bulk work is under way once this many deliveries arrived / documents were uploaded. */
const UNDER_WAY = Number(process.env.BENCH_ISOLATION_UNDER_WAY ?? 100);
const UPLOAD_CONCURRENCY = 8;
const DRAIN_BOUND_MS = 60 * 60_000;

/** A stream may wait minutes behind a backlog (that is what is measured): no client-side time limit. */
const patient = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

/** A webhook consumer that answers 200 at once and counts what arrived. */
async function startConsumer() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received: () => received, close: () => server.close() };
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A small document of its own words (about 1.5 KB: a few chunks). */
const WORDS = 'agent session delivery upload knowledge chunk search answer model queue worker signal timer record index event'.split(' ');
function smallDocument(n: number): Buffer {
  const sentences = Array.from({ length: 24 }, (_, s) =>
    Array.from({ length: 10 }, (_, w) => WORDS[(n * 7 + s * 3 + w * 5) % WORDS.length]).join(' '),
  );
  return Buffer.from(`Document ${n}.\n\n${sentences.join('. ')}.\n`);
}

/**
 * Interactive work beside bulk work: streamed completion time (request to `done`) on an idle stack,
 * during a burst of webhook deliveries (EVENTS events recorded at once, one subscription) and during
 * an ingest of DOCUMENTS small documents; each ratio is against the idle p50 of the same run.
 * The service runs as shipped: one API process, one worker process, the local embedding model.
 */
export async function benchIsolation(): Promise<void> {
  const suffix = randomToken(6).toLowerCase();
  const apiPort = await freePort();
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const model = await startInstantModel();
  const consumer = await startConsumer();
  const env: NodeJS.ProcessEnv = {
    ...benchServiceEnv('iso', suffix, { key, modelUrl: model.url, apiPort }),
    ELASTICSEARCH_INDEX_PREFIX: `bench_iso_${suffix}`,
    ALLOW_PRIVATE_URLS: 'true',
  };
  const base = `http://127.0.0.1:${apiPort}/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = envelopePoster(base, headers);
  const mongo = await MongoClient.connect(env.MONGODB_URI!);
  const api = await startServer(join(__dirname, '..', 'api', 'main.js'), env, `${base}/health`);
  const worker = await startProcess(join(__dirname, '..', 'workers', 'main.js'), { ...env, LOG_LEVEL: 'info' }, 'worker running').catch(
    async (err: unknown) => {
      await stopServer(api);
      throw err;
    },
  );
  try {
    const agent = await post('/combo/agents', { name: 'bench', instructions: 'Answer briefly.' });
    const streamed = async (): Promise<number> => {
      const session = await post(`/combo/agents/${agent.agent_id}/sessions`, {});
      const started = performance.now();
      const res = await httpRequest(`${base}/combo/agents/${agent.agent_id}/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ session_id: session.session_id, question: 'What is the answer?', stream: true }),
        dispatcher: patient,
      });
      const text = await res.body.text();
      if (!text.includes('event: done')) throw new Error(`stream ended without done: ${text.slice(-300)}`);
      return performance.now() - started;
    };
    /** COMPLETIONS streamed completions started PACE_MS apart (not one after the other: a stuck one does not hold the rest). */
    const measure = async () => {
      const runs: Array<Promise<number>> = [];
      for (let i = 0; i < COMPLETIONS; i++) {
        runs.push(streamed());
        await new Promise((r) => setTimeout(r, PACE_MS));
      }
      return (await Promise.all(runs)).sort((a, b) => a - b);
    };

    // Warm-up: bundles, connections, the embedding model and the parse threads.
    for (let i = 0; i < 5; i++) await streamed();
    const kb = await post('/kb', { name: 'bulk', chunk_tokens: 128, overlap_tokens: 16 });
    const upload = async (n: number) => {
      const form = new FormData();
      form.append('kb_id', kb.kb_id!);
      form.append('file', new Blob([smallDocument(n)], { type: 'text/plain' }), `doc-${n}.txt`);
      const res = await httpRequest(`${base}/document`, { method: 'POST', headers: { authorization: headers.authorization }, body: form });
      const json = (await res.body.json()) as { code: number; data: { doc_id: string } };
      if (json.code !== 0) throw new Error(`upload answered ${JSON.stringify(json)}`);
      return json.data.doc_id;
    };
    const warmDocs = await Promise.all([0, 1, 2, 3].map((n) => upload(-1 - n)));
    const documents = mongo.db(env.MONGODB_DB).collection('documents');
    const parsing = () => documents.countDocuments({ status: 'parsing' });
    await waitUntil(async () => (await parsing()) === 0, 120_000, 'warm-up documents');

    const idle = await measure();

    // During a delivery burst: EVENTS events recorded at once, as the API records them.
    await post('/webhook/subscriptions', { url: consumer.url, events: ['session.created'] });
    const eventLog = createEventLog(mongo.db(env.MONGODB_DB));
    const burstStart = consumer.received();
    for (let i = 0; i < EVENTS; i += 1000) {
      const timestamp = new Date().toISOString();
      await eventLog.appendMany(
        Array.from({ length: Math.min(1000, EVENTS - i) }, (_, j) => ({
          event_id: `evt_iso${suffix}${i + j}`,
          event: 'session.created' as const,
          tenant_id: 'default',
          timestamp,
          data: { session_id: `ses_iso${i + j}`, tenant_id: 'default', user_id: 'bench' },
        })),
      );
    }
    await waitUntil(() => consumer.received() - burstStart >= Math.min(UNDER_WAY, EVENTS), 600_000, 'the burst to start');
    const duringBurst = await measure();
    const deliveredByThen = consumer.received() - burstStart;
    // Every event, the measured completions' own session.created events too, before the next phase.
    await waitUntil(() => consumer.received() - burstStart >= EVENTS + COMPLETIONS, DRAIN_BOUND_MS, 'the burst to drain');

    // During an ingest: DOCUMENTS uploads, UPLOAD_CONCURRENCY at a time, measured once UNDER_WAY are in.
    const docIds: string[] = [];
    let next = 0;
    const uploading = Promise.all(
      Array.from({ length: UPLOAD_CONCURRENCY }, async () => {
        while (next < DOCUMENTS) docIds.push(await upload(next++));
      }),
    );
    await waitUntil(() => docIds.length >= Math.min(UNDER_WAY, DOCUMENTS), 600_000, 'the ingest to start');
    const duringIngest = await measure();
    const uploadedByThen = docIds.length;
    const readyByThen = (await documents.countDocuments({ status: 'ready' })) - warmDocs.length;
    await uploading;
    await waitUntil(async () => (await parsing()) === 0, DRAIN_BOUND_MS, 'the ingest to finish');

    const p50 = (xs: number[]) => percentile(xs, 50);
    const ms = (x: number) => x.toFixed(0);
    console.log(`\n## isolation (${COMPLETIONS} streamed completions per phase, one every ${PACE_MS} ms, zero-latency model)\n`);
    console.log('| phase | completion p50 ms | p99 ms | ratio p50 / idle p50 (target ≤ 1.5) |');
    console.log('|---|---|---|---|');
    console.log(`| idle stack (baseline) | ${ms(p50(idle))} | ${ms(percentile(idle, 99))} | 1 |`);
    console.log(
      `| during a ${EVENTS}-event delivery burst (${deliveredByThen} delivered when the last completion ended) | ${ms(p50(duringBurst))} | ${ms(percentile(duringBurst, 99))} | **${ratio(p50(duringBurst), p50(idle))}** |`,
    );
    console.log(
      `| during a ${DOCUMENTS}-document ingest (${uploadedByThen} uploaded, ${readyByThen} ready when the last completion ended) | ${ms(p50(duringIngest))} | ${ms(percentile(duringIngest, 99))} | **${ratio(p50(duringIngest), p50(idle))}** |`,
    );
  } finally {
    await stopServer(worker);
    await stopServer(api);
    model.close();
    consumer.close();
    await patient.close();
    await mongo.db(env.MONGODB_DB).dropDatabase();
    await mongo.close();
  }
}
