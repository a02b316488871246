import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { randomToken } from '../common/ids';
import { bareOneActivityWorkflow } from './bare-workflow';
import { printProfile, type TimedRequest } from './completion-profile';
import { benchServiceEnv, envelopePoster, freePort, percentile, ratio, startProcess, startServer, stopServer } from './load';
import { cpuBetween, cpuSnapshot } from './process-cpu';

const ROUNDS = Number(process.env.BENCH_COMPLETION_ROUNDS ?? 3);
const PER_ROUND = Number(process.env.BENCH_COMPLETIONS_PER_ROUND ?? 40);
const SESSIONS = 8;
/** Clients driving completions (each its own session) and bare round trips side by side, for the throughput rows. */
const CONCURRENT_CLIENTS = Number(process.env.BENCH_CONCURRENT_CLIENTS ?? 50);
/** Requests each of those clients makes, one after another. */
const CONCURRENT_PER_CLIENT = Number(process.env.BENCH_CONCURRENT_PER_CLIENT ?? 4);
/** Requests of each kind whose Temporal histories are read back for the profile (the last ones of the run). */
const PROFILED = Number(process.env.BENCH_COMPLETION_PROFILED ?? 20);

/** An OpenAI-compatible model that answers at once: a fixed answer, as JSON or as a short stream. */
export async function startInstantModel() {
  const answer = 'The answer is forty-two.';
  const usage = { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean; model: string };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'cmpl',
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of answer.split(' ')) {
        res.write(
          `data: ${JSON.stringify({ id: 'cmpl', model: body.model, choices: [{ index: 0, delta: { content: `${piece} ` }, finish_reason: null }] })}\n\n`,
        );
      }
      res.write(
        `data: ${JSON.stringify({ id: 'cmpl', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      );
      res.write(`data: ${JSON.stringify({ id: 'cmpl', model: body.model, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() };
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
};
const ms = (x: number) => x.toFixed(1);

/**
 * Completion latency with a zero-latency scripted model, against a bare Temporal round trip (start
 * a workflow that runs one no-op activity, await its result) measured in the same run, on the same
 * server. Rounds interleave the three measurements so noise on this shared machine hits them alike.
 */
export async function benchCompletions(): Promise<void> {
  const suffix = randomToken(6).toLowerCase();
  const apiPort = await freePort();
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const model = await startInstantModel();
  const env = benchServiceEnv('cmp', suffix, { key, modelUrl: model.url, apiPort });
  const bareQueue = `${env.TEMPORAL_TASK_QUEUE}-bare`;
  const connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS });
  const client = new Client({ connection });
  const base = `http://127.0.0.1:${apiPort}/v1`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const post = envelopePoster(base, headers);

  const bareWorker = await startProcess(join(__dirname, 'bare-worker.js'), { ...env, TEMPORAL_TASK_QUEUE: bareQueue }, 'ready');
  const api = await startServer(join(__dirname, '..', 'api', 'main.js'), env, `${base}/health`);
  const worker = await startProcess(join(__dirname, '..', 'workers', 'main.js'), { ...env, LOG_LEVEL: 'info' }, 'worker running');
  const extraWorkers: Awaited<ReturnType<typeof startProcess>>[] = [];
  try {
    const agent = await post('/combo/agents', { name: 'bench', instructions: 'Answer briefly.' });
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) sessions.push((await post(`/combo/agents/${agent.agent_id}/sessions`, {})).session_id!);
    let turn = 0;

    const bareRoundTrip = async () => {
      const started = performance.now();
      await client.workflow.execute(bareOneActivityWorkflow, { taskQueue: bareQueue, workflowId: `bench-bare-${suffix}-${turn++}` });
      return performance.now() - started;
    };
    const jsonProfile: TimedRequest[] = [];
    const streamProfile: TimedRequest[] = [];
    const enqueuedProfile: TimedRequest[] = [];
    const keep = (into: TimedRequest[], request: TimedRequest) => {
      into.push(request);
      if (into.length > PROFILED) into.shift();
    };
    const completion = async (sessionId = sessions[turn++ % SESSIONS]!) => {
      const sentAt = Date.now();
      const started = performance.now();
      const reply = await post(`/combo/agents/${agent.agent_id}/completions`, { session_id: sessionId, question: 'What is the answer?' });
      const took = performance.now() - started;
      keep(jsonProfile, { traceId: reply.trace_id!, sessionId, sentAt, marks: {}, answeredAt: Date.now() });
      return took;
    };
    /** A streamed completion; `enqueue` is a strategy that cannot refuse it, so its stream opens before its run is handed over. */
    const streamed = async (strategy?: 'enqueue') => {
      const sessionId = sessions[turn++ % SESSIONS]!;
      const sentAt = Date.now();
      const started = performance.now();
      const res = await fetch(`${base}/combo/agents/${agent.agent_id}/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          session_id: sessionId,
          question: 'What is the answer?',
          stream: true,
          ...(strategy ? { multitask_strategy: strategy } : {}),
        }),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let firstEvent = NaN;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (Number.isNaN(firstEvent) && text.includes('\nevent: ')) firstEvent = performance.now() - started;
      }
      if (!text.includes('event: done')) throw new Error(`stream ended without done: ${text.slice(-300)}`);
      const total = performance.now() - started;
      const traceId = /^id: (trc_[A-Za-z0-9]+):/m.exec(text)![1]!;
      keep(strategy ? enqueuedProfile : streamProfile, {
        traceId,
        sessionId,
        sentAt,
        marks: { 'client: first SSE event': firstEvent },
        answeredAt: Date.now(),
      });
      return { firstEvent, total };
    };

    // Warm-up: bundles, connections and caches on every path.
    for (let i = 0; i < 10; i++) {
      await bareRoundTrip();
      await completion();
      await streamed();
      await streamed('enqueue');
    }
    const bare: number[] = [];
    const json: number[] = [];
    const firstEvent: number[] = [];
    const streamTotal: number[] = [];
    const enqueuedFirstEvent: number[] = [];
    const enqueuedTotal: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) bare.push(await bareRoundTrip());
      for (let i = 0; i < PER_ROUND; i++) json.push(await completion());
      for (let i = 0; i < PER_ROUND; i++) {
        const s = await streamed();
        firstEvent.push(s.firstEvent);
        streamTotal.push(s.total);
      }
      for (let i = 0; i < PER_ROUND; i++) {
        const s = await streamed('enqueue');
        enqueuedFirstEvent.push(s.firstEvent);
        enqueuedTotal.push(s.total);
      }
    }
    const b = summary(bare);
    const j = summary(json);
    const f = summary(firstEvent);
    const t = summary(streamTotal);
    const fe = summary(enqueuedFirstEvent);
    const te = summary(enqueuedTotal);
    console.log(`\n## completions (${ROUNDS} interleaved rounds × ${PER_ROUND}, zero-latency scripted model, sequential requests)\n`);
    console.log('| measurement | p50 ms | p99 ms |');
    console.log('|---|---|---|');
    console.log(`| baseline: bare Temporal round trip (start, one no-op activity, result) | ${ms(b.p50)} | ${ms(b.p99)} |`);
    console.log(`| non-streaming completion (HTTP request to reply) | ${ms(j.p50)} | ${ms(j.p99)} |`);
    console.log(
      `| streaming: time to first SSE event (the agent's \`reject\`: once the idle session's turn is taken) | ${ms(f.p50)} | ${ms(f.p99)} |`,
    );
    console.log(`| streaming: time to \`done\` | ${ms(t.p50)} | ${ms(t.p99)} |`);
    console.log(
      `| streaming, \`multitask_strategy: enqueue\`: time to first SSE event (before the run's admission) | ${ms(fe.p50)} | ${ms(fe.p99)} |`,
    );
    console.log(`| streaming, \`multitask_strategy: enqueue\`: time to \`done\` | ${ms(te.p50)} | ${ms(te.p99)} |`);
    console.log(`\nratio non-streaming p50 / bare p50: **${ratio(j.p50, b.p50)}** (target ≤ 1.0, aim ≤ 0.7)`);
    console.log(`ratio first SSE event p50 / bare p50: **${ratio(f.p50, b.p50)}** (target ≤ 0.2, aim ≤ 0.1)`);
    console.log(`ratio first SSE event p50, enqueue / bare p50: **${ratio(fe.p50, b.p50)}** (target ≤ 0.2, aim ≤ 0.1)`);
    await printProfile(client, 'where a JSON completion’s time goes', jsonProfile);
    await printProfile(client, 'where a streamed completion’s time goes', streamProfile);
    await printProfile(client, 'where a streamed completion’s time goes under `enqueue`', enqueuedProfile);

    // Throughput: CONCURRENT_CLIENTS clients at once, each with its own session, against as many
    // clients running bare round trips; then again with a second worker process of each kind.
    const concurrentSessions: string[] = [];
    for (let i = 0; i < CONCURRENT_CLIENTS; i++)
      concurrentSessions.push((await post(`/combo/agents/${agent.agent_id}/sessions`, {})).session_id!);
    const perSecond = async (one: (client: number) => Promise<unknown>) => {
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENT_CLIENTS }, async (_, c) => {
          for (let i = 0; i < CONCURRENT_PER_CLIENT; i++) await one(c);
        }),
      );
      return (CONCURRENT_CLIENTS * CONCURRENT_PER_CLIENT) / ((performance.now() - started) / 1000);
    };
    // CPU each process spends per operation (the machine's whole budget, all parts): what bounds throughput here.
    const cpuPerOperation = async (run: () => Promise<number>) => {
      const pids = { API: api.pid!, worker: worker.pid!, 'bare worker': bareWorker.pid! };
      const before = cpuSnapshot(pids);
      const rate = await run();
      const used = cpuBetween(before, cpuSnapshot(pids));
      const operations = CONCURRENT_CLIENTS * CONCURRENT_PER_CLIENT;
      return { rate, cpuMs: new Map([...used].map(([part, msUsed]) => [part, msUsed / operations])) };
    };
    const throughput = async () => {
      const bare = await cpuPerOperation(() => perSecond(() => bareRoundTrip()));
      const completions = await cpuPerOperation(() => perSecond((c) => completion(concurrentSessions[c])));
      return { bareRate: bare.rate, completionRate: completions.rate, bareCpu: bare.cpuMs, completionCpu: completions.cpuMs };
    };
    const one = await throughput();
    extraWorkers.push(await startProcess(join(__dirname, 'bare-worker.js'), { ...env, TEMPORAL_TASK_QUEUE: bareQueue }, 'ready'));
    extraWorkers.push(await startProcess(join(__dirname, '..', 'workers', 'main.js'), { ...env, LOG_LEVEL: 'info' }, 'worker running'));
    const two = await throughput();
    console.log(
      `\n## completions throughput (${CONCURRENT_CLIENTS} concurrent clients × ${CONCURRENT_PER_CLIENT} requests each, each client its own session)\n`,
    );
    console.log('| workers | bare round trips/s | JSON completions/s | ratio (target ≥ 1.0) |');
    console.log('|---|---|---|---|');
    for (const [workers, r] of [
      [1, one],
      [2, two],
    ] as const)
      console.log(
        `| ${workers} | ${r.bareRate.toFixed(1)} | ${r.completionRate.toFixed(1)} | **${ratio(r.completionRate, r.bareRate)}** |`,
      );
    console.log('\n(2 workers on this 2-core machine share its CPUs with the API, Temporal and the store: contention, not scaling.)');
    console.log('\nCPU ms per operation, 1 worker (a bare round trip, a JSON completion):\n');
    console.log('| process | bare round trip | JSON completion |');
    console.log('|---|---|---|');
    const parts = [...new Set([...one.bareCpu.keys(), ...one.completionCpu.keys()])];
    const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    for (const part of parts) console.log(`| ${part} | ${ms(one.bareCpu.get(part) ?? 0)} | ${ms(one.completionCpu.get(part) ?? 0)} |`);
    console.log(`| all | ${ms(total(one.bareCpu))} | ${ms(total(one.completionCpu))} |`);
  } finally {
    for (const extra of extraWorkers) await stopServer(extra);
    await stopServer(worker);
    await stopServer(api);
    await stopServer(bareWorker);
    model.close();
    await connection.close();
    const mongo = await MongoClient.connect(env.MONGODB_URI!);
    await mongo.db(env.MONGODB_DB).dropDatabase();
    await mongo.close();
  }
}
