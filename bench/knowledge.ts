import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Client as EsClient } from '@elastic/elasticsearch';
import { MongoClient } from 'mongodb';
import { request as httpRequest } from 'undici';
import { randomToken } from '../common/ids';
import { createLocalMiniLm, defaultLocalModelDir } from '../upstream/embeddings/local-minilm';
import { hybridQuery } from '../stores/hybrid-query';
import { createChunkIndex } from '../stores/chunk-index';
import type { IndexedChunk } from '../stores/indexed-chunk';
import { freePort, percentile, startProcess, startServer, stopServer } from './load';
import { cpuBetween, cpuSnapshot } from './process-cpu';

const LICENSES = '/usr/share/common-licenses';
const COPIES = Number(process.env.BENCH_KB_COPIES ?? 3);
const SEARCHES = Number(process.env.BENCH_KB_SEARCHES ?? 200);
const UPLOAD_CONCURRENCY = Number(process.env.BENCH_KB_UPLOAD_CONCURRENCY ?? 8);
const BOOKS = Number(process.env.BENCH_KB_BOOKS ?? 3);
/** Each ingest corpus runs this many times, each on a fresh deployment and followed by its own baseline. */
const ROUNDS = Number(process.env.BENCH_KB_ROUNDS ?? 3);
/**
 * Which parts run: `books`, `small` (the two ingest corpora), `search` (search latency with an instant
 * embedding upstream) and `local` (the MiniLM deployment: ingest, search latency and recall).
 */
const PARTS = new Set((process.env.BENCH_KB_PARTS ?? 'books,small,search,local').split(','));
const questions = JSON.parse(readFileSync(join(__dirname, '..', '..', 'bench', 'knowledge-questions.json'), 'utf8')) as Array<{
  question: string;
  expect: string;
}>;

/** The licence texts of this Debian machine, once each (GPL is a link to GPL-3, and so on). */
function corpus(): Array<{ name: string; bytes: Buffer }> {
  const seen = new Set<string>();
  return readdirSync(LICENSES)
    .map((name) => ({ name, path: realpathSync(join(LICENSES, name)) }))
    .filter(({ path }) => statSync(path).isFile() && !seen.has(path) && seen.add(path))
    .map(({ name, path }) => ({ name: `${name}.txt`, bytes: readFileSync(path) }));
}

/** A vector that costs nothing to make: a hash of the text spread over 384 dimensions. */
function instantVector(text: string): number[] {
  const seed = createHash('sha256').update(text).digest();
  return Array.from({ length: 384 }, (_, i) => (seed[i % 32]! - 128) / 128 + (i % 7) / 100);
}

/** An OpenAI-compatible /embeddings that answers at once: ingest cost without a model's cost. */
async function startInstantEmbeddings() {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const { input } = JSON.parse(Buffer.concat(parts).toString('utf8')) as { input: string[] };
      const data = input.map((text, index) => ({ index, embedding: instantVector(text) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

interface Deployment {
  base: string;
  key: string;
  env: NodeJS.ProcessEnv;
  /** The deployment's own processes, for CPU accounting. */
  pids: Record<string, number>;
  call(path: string, body?: unknown, method?: 'GET' | 'POST' | 'DELETE'): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

async function deploy(extraEnv: Record<string, string>): Promise<Deployment> {
  const suffix = randomToken(6).toLowerCase();
  const port = await freePort();
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_DB: `bench_kb_${suffix}`,
    ELASTICSEARCH_INDEX_PREFIX: `bench_kb_${suffix}`,
    TEMPORAL_TASK_QUEUE: `bench-kb-${suffix}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BOOTSTRAP_API_KEY: key,
    RATE_LIMIT_DEFAULT_PER_MIN: '100000000',
    RATE_LIMIT_UPLOADS_PER_MIN: '100000000',
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const base = `http://127.0.0.1:${port}/v1`;
  const api = await startServer(join(__dirname, '..', 'api', 'main.js'), env, `${base}/health`);
  const worker = await startProcess(join(__dirname, '..', 'workers', 'main.js'), { ...env, LOG_LEVEL: 'info' }, 'worker running');
  // undici's request, the HTTP client under the Elasticsearch client that times the raw queries:
  // both sides of a comparison pay the same client cost (fetch costs about twice as much per call).
  const call = async (path: string, body?: unknown, method: 'GET' | 'POST' | 'DELETE' = body === undefined ? 'GET' : 'POST') => {
    const res = await httpRequest(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.body.json()) as { code: number; data: Record<string, unknown> };
    if (json.code !== 0) throw new Error(`${path} answered ${JSON.stringify(json)}`);
    return json.data;
  };
  return {
    base,
    key,
    env,
    pids: { API: api.pid!, worker: worker.pid! },
    call,
    async stop() {
      await stopServer(worker);
      await stopServer(api);
      const mongo = await MongoClient.connect(env.MONGODB_URI!);
      await mongo.db(env.MONGODB_DB).dropDatabase();
      await mongo.close();
      const es = new EsClient({ node: env.ELASTICSEARCH_URL! });
      const indices = Object.keys(await es.indices.get({ index: `${env.ELASTICSEARCH_INDEX_PREFIX}-*`, allow_no_indices: true }));
      if (indices.length > 0) await es.indices.delete({ index: indices });
      await es.close();
    },
  };
}

interface Upload {
  name: string;
  bytes: Buffer;
}

/** The corpus COPIES times: small documents, one licence per file. */
function smallDocuments(): Upload[] {
  const files = corpus();
  return Array.from({ length: COPIES }, (_, copy) =>
    files.map((f) => ({ ...f, name: copy === 0 ? f.name : `copy${copy}-${f.name}` })),
  ).flat();
}

/** The same texts bound into BOOKS book-size documents (each licence a chapter). */
function bookDocuments(): Upload[] {
  const small = smallDocuments();
  return Array.from({ length: BOOKS }, (_, book) => ({
    name: `book-${book}.txt`,
    bytes: Buffer.concat(small.filter((_, i) => i % BOOKS === book).flatMap((f) => [Buffer.from(`\n\n${f.name}\n\n`), f.bytes])),
  }));
}

async function upload(d: Deployment, kbId: string, f: Upload): Promise<string> {
  const form = new FormData();
  form.append('kb_id', kbId);
  form.append('file', new Blob([f.bytes], { type: 'text/plain' }), f.name);
  return ((await d.call('/document', form)) as { doc_id: string }).doc_id;
}

interface ReadyDocument {
  chunk_count: number;
  progress: { finished_at: string };
}

/** Polls a document until it is ready; a failed one ends the benchmark with its error. */
async function whenReady(d: Deployment, id: string): Promise<ReadyDocument> {
  for (;;) {
    const doc = (await d.call(`/document/${id}`)) as unknown as ReadyDocument & { status: string; error: unknown };
    if (doc.status === 'ready') return doc;
    if (doc.status === 'failed') throw new Error(`document ${id} failed: ${JSON.stringify(doc.error)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A few documents parsed to the end in a knowledge base of their own, at once so that every parsing
 * thread gets one: what is timed afterwards is a running service, not a process compiling its
 * parsing code and filling its tokenizer's cache.
 */
async function warmUp(d: Deployment): Promise<void> {
  const kb = (await d.call('/kb', { name: 'warm-up', chunk_tokens: 128, overlap_tokens: 16 })) as { kb_id: string };
  const ids = await Promise.all(
    corpus()
      .slice(0, 4)
      .map((f) => upload(d, kb.kb_id, f)),
  );
  for (const id of ids) await whenReady(d, id);
}

/**
 * A bulk import: the client uploads every file (UPLOAD_CONCURRENCY at a time), then polls each until
 * it is searchable. Chunks per second from the first upload to the last document ready, and each
 * document's own upload-to-ready time.
 */
async function ingest(d: Deployment, uploads: Upload[]) {
  const kb = (await d.call('/kb', { name: 'licences', chunk_tokens: 128, overlap_tokens: 16 })) as { kb_id: string };
  const cpuBefore = cpuSnapshot(d.pids);
  const benchCpuBefore = process.cpuUsage();
  const started = Date.now();
  const uploaded: Array<{ id: string; at: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: UPLOAD_CONCURRENCY }, async () => {
      while (next < uploads.length) {
        const f = uploads[next++]!;
        const at = Date.now();
        uploaded.push({ id: await upload(d, kb.kb_id, f), at });
      }
    }),
  );
  let chunks = 0;
  const latencies: number[] = [];
  for (const { id, at } of uploaded) {
    const doc = await whenReady(d, id);
    chunks += doc.chunk_count;
    // Recorded by the worker when the chunks became searchable (same machine clock), not when polled.
    latencies.push(Date.parse(doc.progress.finished_at) - at);
  }
  const cpu = cpuBetween(cpuBefore, cpuSnapshot(d.pids));
  const benchCpu = process.cpuUsage(benchCpuBefore);
  cpu.set('this benchmark (client, instant upstream)', (benchCpu.user + benchCpu.system) / 1000);
  const seconds = (Math.max(...uploaded.map((u, i) => u.at + latencies[i]!)) - started) / 1000;
  return {
    kbId: kb.kb_id,
    documents: uploaded.length,
    chunks,
    seconds,
    rate: chunks / seconds,
    latencies: [...latencies].sort((a, b) => a - b),
    cpu,
  };
}

/** The same chunks with their vectors, bulk-indexed straight into a fresh index: the baseline. */
async function rawBulk(d: Deployment, es: EsClient, kbId: string) {
  const source = createChunkIndex(es, d.env.ELASTICSEARCH_INDEX_PREFIX!);
  const all = await es.search<IndexedChunk>({ index: source.indexFor(384), size: 10_000, query: { term: { kb_id: kbId } } });
  const chunks = all.hits.hits.map((h) => h._source!);
  const target = createChunkIndex(es, `${d.env.ELASTICSEARCH_INDEX_PREFIX}_raw`);
  await target.bulkIndex(384, chunks.slice(0, 1)); // index creation is not part of the timing
  const cpuBefore = cpuSnapshot({});
  const started = Date.now();
  for (let i = 0; i < chunks.length; i += 500) await target.bulkIndex(384, chunks.slice(i, i + 500));
  await target.refresh(384);
  const seconds = (Date.now() - started) / 1000;
  const esCpuMs = cpuBetween(cpuBefore, cpuSnapshot({})).get('Elasticsearch') ?? 0;
  await es.indices.delete({ index: target.indexFor(384) });
  return { chunks: chunks.length, seconds, rate: chunks.length / seconds, esCpuMs };
}

async function timed(n: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await run(i);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out.sort((a, b) => a - b);
}

const hit = (chunks: Array<{ content: string }>, expect: string) =>
  chunks.slice(0, 5).some((c) => c.content.replace(/\s+/g, ' ').toLowerCase().includes(expect.toLowerCase()));

const median = <T>(sorted: T[]) => sorted[Math.floor(sorted.length / 2)]!;

/**
 * One corpus imported ROUNDS times with an embedding upstream that costs nothing (what the service
 * itself adds), each round on a fresh deployment (a fresh index, like the baseline's) and followed by
 * the raw bulk baseline on the same chunks: the machine's noise shows in the spread of the rounds.
 */
async function ingestRows(es: EsClient, instantUrl: string, label: string, uploads: Upload[], target: number): Promise<string[]> {
  const rounds: Array<{ service: Awaited<ReturnType<typeof ingest>>; raw: Awaited<ReturnType<typeof rawBulk>> }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const fast = await deploy({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: instantUrl,
      EMBEDDING_MODEL: 'instant',
      EMBEDDING_DIMENSION: '384',
      RERANK_PROVIDER: 'none',
    });
    try {
      await warmUp(fast);
      const service = await ingest(fast, uploads);
      rounds.push({ service, raw: await rawBulk(fast, es, service.kbId) });
    } finally {
      await fast.stop();
    }
  }
  const ratios = rounds.map((r) => r.service.rate / r.raw.rate).sort((a, b) => a - b);
  const { service, raw } = median([...rounds].sort((a, b) => a.service.rate - b.service.rate));
  const perDoc = `document upload to ready p50 ${percentile(service.latencies, 50).toFixed(0)} ms`;
  const cpuPerDoc = [...service.cpu].sort((a, b) => b[1] - a[1]).map(([part, ms]) => `${part} ${(ms / service.documents).toFixed(0)}`);
  return [
    `| ingest, ${label} (${service.documents} documents, ${service.chunks} chunks; ${perDoc}), instant embedding upstream, upload to searchable, median of ${ROUNDS} (chunks/s) | ${service.rate.toFixed(1)} |`,
    `| baseline: the same pre-embedded chunks, bulk API in 500s + refresh, median (chunks/s) | ${median(rounds.map((r) => r.raw.rate).sort((a, b) => a - b)).toFixed(1)} |`,
    `| ratio ingest / raw bulk, ${label}: median (each round) (target >= ${target}) | ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(', ')}) |`,
    `| CPU per document during the median round's import, by process (ms; the machine's ${availableParallelism()} cores give ${((availableParallelism() * 1000 * service.seconds) / service.documents).toFixed(0)}) | ${cpuPerDoc.join(', ')} |`,
    `| the same for its raw bulk baseline (ms of Elasticsearch CPU per document's chunks) | ${(raw.esCpuMs / service.documents).toFixed(0)} |`,
  ];
}

const searchBody = (kbId: string, i: number, rerank: number) => ({
  question: questions[i % questions.length]!.question,
  kb_ids: [kbId],
  top_k: 5,
  rerank_top_n: rerank,
});

/**
 * Search latency through the API against the raw Elasticsearch query the service issues, with the
 * question's vector precomputed for the raw side. Interleaved, so that a drift in the machine's load
 * (Elasticsearch merging segments after the ingest, another tenant of the host) weighs on both alike.
 */
async function searchLatencyRows(d: Deployment, es: EsClient, kbId: string, vectors: number[][], label: string): Promise<string[]> {
  const index = createChunkIndex(es, d.env.ELASTICSEARCH_INDEX_PREFIX!).indexFor(384);
  const raw = (i: number) =>
    es.search(
      hybridQuery(index, 'default', [kbId], undefined, questions[i % questions.length]!.question, vectors[i % vectors.length]!, 32, true),
    );
  for (let i = 0; i < 20; i++) {
    await d.call('/chunk/search', searchBody(kbId, i, 0));
    await raw(i);
  }
  const serviceTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    serviceTimes.push(...(await timed(1, () => d.call('/chunk/search', searchBody(kbId, i, 0)))));
    rawTimes.push(...(await timed(1, () => raw(i))));
  }
  serviceTimes.sort((a, b) => a - b);
  rawTimes.sort((a, b) => a - b);
  const p = (times: number[]) => `${percentile(times, 50).toFixed(1)} / ${percentile(times, 99).toFixed(1)}`;
  return [
    `| search via the API, ${label}, no reranking: p50 / p99 ms (${SEARCHES} requests) | ${p(serviceTimes)} |`,
    `| baseline: the raw Elasticsearch query the service issues (vector precomputed): p50 / p99 ms | ${p(rawTimes)} |`,
    `| ratio search p50 / raw p50, ${label}${label.startsWith('instant') ? ' (target <= 1.05)' : ' (reported)'} | ${(percentile(serviceTimes, 50) / percentile(rawTimes, 50)).toFixed(2)} |`,
  ];
}

/**
 * What the service adds to a search: the embedding upstream answers at once (as in the ingest
 * rounds), so the time left is the API's, the upstream round trip's and Elasticsearch's.
 */
async function searchRows(es: EsClient, instantUrl: string): Promise<string[]> {
  const d = await deploy({
    EMBEDDING_PROVIDER: 'openai',
    EMBEDDING_BASE_URL: instantUrl,
    EMBEDDING_MODEL: 'instant',
    EMBEDDING_DIMENSION: '384',
    RERANK_PROVIDER: 'none',
  });
  try {
    const { kbId } = await ingest(d, smallDocuments());
    return await searchLatencyRows(
      d,
      es,
      kbId,
      questions.map((q) => instantVector(q.question)),
      'instant embedding upstream',
    );
  } finally {
    await d.stop();
  }
}

/** The default deployment, where the local MiniLM model embeds and reranks: its ingest, search latency and recall. */
async function localModelRows(es: EsClient): Promise<string[]> {
  const rows: string[] = [];
  const local = await deploy({ EMBEDDING_PROVIDER: 'local', RERANK_PROVIDER: 'local' });
  try {
    const service = await ingest(local, smallDocuments());
    rows.push(`| ingest with the local MiniLM model (chunks/s, embedding included) | ${service.rate.toFixed(1)} |`);

    const embedder = createLocalMiniLm({ modelDir: process.env.EMBEDDING_MODEL_DIR ?? defaultLocalModelDir() });
    const vectors = await embedder.embed(questions.map((q) => q.question));
    rows.push(...(await searchLatencyRows(local, es, service.kbId, vectors, 'local MiniLM embedding the question in the API process')));
    const rerankTimes = await timed(Math.min(SEARCHES, 60), (i) => local.call('/chunk/search', searchBody(service.kbId, i, 10)));
    rows.push(
      `| search with the local reranker on the best 10: p50 / p99 ms | ${percentile(rerankTimes, 50).toFixed(1)} / ${percentile(rerankTimes, 99).toFixed(1)} |`,
    );

    let plain = 0;
    let reranked = 0;
    for (const [i, item] of questions.entries()) {
      const a = (await local.call('/chunk/search', searchBody(service.kbId, i, 0))) as { chunks: Array<{ content: string }> };
      const b = (await local.call('/chunk/search', searchBody(service.kbId, i, 10))) as { chunks: Array<{ content: string }> };
      if (hit(a.chunks, item.expect)) plain++;
      if (hit(b.chunks, item.expect)) reranked++;
    }
    rows.push(
      `| recall@5 on ${questions.length} labelled questions: hybrid / hybrid + local reranker | ${(plain / questions.length).toFixed(2)} / ${(reranked / questions.length).toFixed(2)} |`,
    );
  } finally {
    await local.stop();
  }
  return rows;
}

/**
 * Knowledge bases: ingest throughput against raw bulk indexing of the same pre-embedded chunks,
 * search latency against the raw Elasticsearch query the service issues, and recall@5 on a
 * labelled question set over the licence texts in /usr/share/common-licenses.
 */
export async function benchKnowledge(): Promise<void> {
  const es = new EsClient({ node: process.env.ELASTICSEARCH_URL! });
  const instant = await startInstantEmbeddings();
  const rows: string[] = [];
  try {
    if (PARTS.has('books')) rows.push(...(await ingestRows(es, instant.url, 'book-size documents', bookDocuments(), 0.8)));
    if (PARTS.has('small')) rows.push(...(await ingestRows(es, instant.url, 'small documents', smallDocuments(), 0.5)));
    if (PARTS.has('search')) rows.push(...(await searchRows(es, instant.url)));
    if (PARTS.has('local')) rows.push(...(await localModelRows(es)));
  } finally {
    instant.close();
    await es.close();
  }
  console.log(
    `\nknowledge benchmark: the licence texts of ${LICENSES} x ${COPIES} (as they are, and bound into ${BOOKS} books), chunk_tokens 128, ${UPLOAD_CONCURRENCY} uploads at a time`,
  );
  console.log('| measure | value |');
  console.log('|---|---|');
  for (const row of rows) console.log(row);
}
