import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { randomToken } from '../common/ids';
import { benchServiceEnv, envelopePoster, freePort, percentile, ratio, startProcess, startServer, stopServer } from './load';
import { startMongoCommandCounter } from './mongo-command-counter';
import { cpuBetween, cpuSnapshot } from './process-cpu';

/** Streamed completions at once through one API process. */
const CONCURRENCY = Number(process.env.BENCH_STREAMS_CONCURRENCY ?? 1_000);
/** Tokens of the long answer (the delta row measures it and half of it). */
const LONG_TOKENS = Number(process.env.BENCH_STREAMS_TOKENS ?? 20_000);
/** How fast the scripted model streams the long answer. */
const TOKENS_PER_SECOND = Number(process.env.BENCH_STREAMS_TOKENS_PER_SECOND ?? 5_000);
/** Pause between two frames of the long answer. */
const FRAME_MS = 10;
const SHORT_ANSWER = ['Streams ', 'that ', 'scale ', 'with ', 'listeners ', 'read ', 'once.'];
const LONG_QUESTION = /^long:(\d+)$/;

/**
 * A scripted OpenAI-compatible model: a short answer in several chunks at once (zero latency), or,
 * asked `long:<tokens>`, an answer of that many tokens streamed at TOKENS_PER_SECOND.
 */
async function startStreamingModel() {
  const frame = (model: string, delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'cmpl', model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: Array<{ content: string }> };
      const long = LONG_QUESTION.exec(body.messages.at(-1)?.content ?? '');
      const tokens = long ? Number(long[1]) : SHORT_ANSWER.length;
      const pieces = long ? Array.from({ length: tokens }, (_, i) => `w${i % 1000} `) : SHORT_ANSWER;
      const perFrame = long ? Math.max(1, Math.round((TOKENS_PER_SECOND * FRAME_MS) / 1000)) : 1;
      const usage = { prompt_tokens: 20, completion_tokens: tokens, total_tokens: 20 + tokens };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        if (at < pieces.length) {
          res.write(frame(body.model, { content: pieces.slice(at, at + perFrame).join('') }));
          at += perFrame;
          if (long) setTimeout(next, FRAME_MS);
          else next();
          return;
        }
        res.write(frame(body.model, {}, 'stop'));
        res.write(`data: ${JSON.stringify({ id: 'cmpl', model: body.model, choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
      };
      next();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

interface StreamRead {
  status: number;
  bytes: number;
  events: number;
  /** Per event: arrival at the client less its recorded `timestamp`, ms; `first`: the run's first event (written on the start path). */
  delays: Array<{ ms: number; first: boolean }>;
}

/** Reads a streamed completion to its end: bytes on the wire, events, and each event's delay from its recording. */
async function readStream(url: string, headers: Record<string, string>, body: unknown): Promise<StreamRead> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const read: StreamRead = { status: res.status, bytes: 0, events: 0, delays: [] };
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    const arrived = Date.now();
    read.bytes += chunk.byteLength;
    pending += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const frame = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (!data) continue;
      const id = /^id: \S+:(\d+)$/m.exec(frame)?.[1];
      read.events++;
      const { timestamp } = JSON.parse(data) as { timestamp?: string };
      if (timestamp) read.delays.push({ ms: arrived - Date.parse(timestamp), first: id === '0' });
    }
  }
  return read;
}

const fixed = (x: number, digits = 1) => x.toFixed(digits);

/**
 * Streams at scale: CONCURRENCY streamed completions at once through one API process (a scripted
 * zero-latency model streaming several chunks), counting the API's database reads through a proxy
 * in front of the store, its CPU, and each event's delay from its recording to its arrival; then
 * the bytes a long answer costs on the wire in each stream format, against the answer's own bytes.
 */
export async function benchStreams(): Promise<void> {
  const suffix = randomToken(6).toLowerCase();
  const apiPort = await freePort();
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const model = await startStreamingModel();
  const store = new URL(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017/');
  const counter = await startMongoCommandCounter({ host: store.hostname, port: Number(store.port || 27017) });
  const env: NodeJS.ProcessEnv = {
    ...benchServiceEnv('str', suffix, { key, modelUrl: model.url, apiPort }),
    COMPLETION_REPLY_WAIT_MS: '600000',
  };
  const base = `http://127.0.0.1:${apiPort}/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = envelopePoster(base, headers);
  const api = await startServer(
    join(__dirname, '..', 'api', 'main.js'),
    { ...env, MONGODB_URI: `mongodb://127.0.0.1:${counter.port}/?directConnection=true` },
    `${base}/health`,
  );
  const worker = await startProcess(join(__dirname, '..', 'workers', 'main.js'), { ...env, LOG_LEVEL: 'info' }, 'worker running');
  try {
    const agent = await post('/combo/agents', { name: 'bench', instructions: 'Answer briefly.' });
    const completions = `${base}/combo/agents/${agent.agent_id}/completions`;
    const newSessions = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 20)
        ids.push(
          ...(await Promise.all(
            Array.from(
              { length: Math.min(20, n - i) },
              async () => (await post(`/combo/agents/${agent.agent_id}/sessions`, {})).session_id!,
            ),
          )),
        );
      return ids;
    };

    // Warm-up: bundles, connections and caches on every path.
    for (const session of await newSessions(5))
      await readStream(completions, headers, { session_id: session, question: 'warm up', stream: true });

    const sessions = await newSessions(CONCURRENCY);
    const readsBefore = counter.snapshot();
    const cpuBefore = cpuSnapshot({ API: api.pid! });
    const started = performance.now();
    const reads = await Promise.all(
      sessions.map((session) => readStream(completions, headers, { session_id: session, question: 'Why?', stream: true })),
    );
    const seconds = (performance.now() - started) / 1000;
    const apiCpuMs = cpuBetween(cpuBefore, cpuSnapshot({ API: api.pid! })).get('API') ?? 0;
    const readsAfter = counter.snapshot();
    const failed = reads.filter((r) => r.status !== 200).length;
    const events = reads.reduce((sum, r) => sum + r.events, 0);
    const dbReads = counter.readsBetween(readsBefore, readsAfter);
    const allDelays = reads.flatMap((r) => r.delays);
    const sortedOf = (values: number[]) => [...values].sort((a, b) => a - b);
    const all = sortedOf(allDelays.map((d) => d.ms));
    const later = sortedOf(allDelays.filter((d) => !d.first).map((d) => d.ms));
    const byCommand = [...readsAfter]
      .map(([name, n]) => [name, n - (readsBefore.get(name) ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ');

    console.log(
      `\n## streams (${CONCURRENCY} concurrent streamed completions, one API process, one worker, zero-latency model in ${SHORT_ANSWER.length} chunks)\n`,
    );
    console.log('| measurement | value | target |');
    console.log('|---|---|---|');
    console.log(`| streams that failed | ${failed} | 0 |`);
    console.log(`| events delivered | ${events} (${fixed(events / seconds)}/s over ${fixed(seconds)} s) | |`);
    console.log(
      `| API database reads per delivered event (baseline: one read per event) | **${fixed(dbReads / events, 2)}** (${dbReads} reads) | ≤ 1.5 |`,
    );
    console.log(`| API CPU per delivered event | ${fixed(apiCpuMs / events, 2)} ms (${fixed(apiCpuMs)} ms in all) | |`);
    console.log(
      `| delay from recording to arrival, every event: p50 / p99 | ${fixed(percentile(all, 50))} / **${fixed(percentile(all, 99))}** ms | p99 ≤ 250 ms |`,
    );
    console.log(
      `| the same, events after the run's first (its first is stamped with the request's time, so it carries the start path) | ${fixed(percentile(later, 50))} / **${fixed(percentile(later, 99))}** ms | |`,
    );
    console.log(`\nAPI commands in the streamed phase: ${byCommand}`);

    // Bytes on the wire for a long answer, in each format, at LONG_TOKENS and half of it.
    const answerBytes = (tokens: number) =>
      Buffer.byteLength(
        Array.from({ length: tokens }, (_, i) => `w${i % 1000} `)
          .join('')
          .trim(),
      );
    const rows: string[] = [];
    const bytesOf: Record<string, number> = {};
    for (const format of ['delta', 'answer'] as const) {
      for (const tokens of [LONG_TOKENS / 2, LONG_TOKENS]) {
        const [session] = await newSessions(1);
        const read = await readStream(completions, headers, {
          session_id: session,
          question: `long:${tokens}`,
          stream: true,
          stream_format: format,
        });
        if (read.status !== 200) {
          rows.push(`| ${format} | ${tokens} | not supported (HTTP ${read.status}) | | |`);
          continue;
        }
        bytesOf[`${format}:${tokens}`] = read.bytes;
        rows.push(`| ${format} | ${tokens} | ${read.bytes} | ${answerBytes(tokens)} | **${ratio(read.bytes, answerBytes(tokens))}×** |`);
      }
    }
    console.log(`\n## streams: bytes on the wire for a long answer (${TOKENS_PER_SECOND} tokens/s)\n`);
    console.log('| stream_format | tokens | bytes on the wire | answer bytes | ratio (target in delta: ≤ 2.5×) |');
    console.log('|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    for (const format of ['delta', 'answer']) {
      const half = bytesOf[`${format}:${LONG_TOKENS / 2}`];
      const whole = bytesOf[`${format}:${LONG_TOKENS}`];
      if (half && whole) console.log(`\n${format}: twice the answer, ${ratio(whole, half)}× the bytes (linear: 2)`);
    }
  } finally {
    await stopServer(worker);
    await stopServer(api);
    model.close();
    counter.close();
    const mongo = await MongoClient.connect(env.MONGODB_URI!);
    await mongo.db(env.MONGODB_DB).dropDatabase();
    await mongo.close();
  }
}
