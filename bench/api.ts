import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { randomToken } from '../common/ids';
import { drive, freePort, type LoadResult, median, ratio, startServer, stopServer } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TINY_BODY = '{"code":0,"data":{},"message":"ok"}';

async function startBareKoa(port: number, body: string) {
  const url = `http://127.0.0.1:${port}/`;
  return { url, child: await startServer(join(__dirname, 'bare-koa.js'), { ...process.env, PORT: String(port), BENCH_BODY: body }, url) };
}

/**
 * Authenticated, rate-limited `GET /v1/combo/agents` on the real service (API process on the local
 * stack) against bare Koa JSON routes, one with a tiny body and one sending the same bytes as the
 * service. Runs are interleaved over several rounds and medians reported, so machine noise hits
 * all three alike.
 */
export async function benchApi(): Promise<void> {
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const apiPort = await freePort();
  const db = `bench_${randomToken(6).toLowerCase()}`;
  const apiEnv = {
    ...process.env,
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    MONGODB_DB: db,
    BOOTSTRAP_API_KEY: key,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    // High enough that no request is refused: the limiter still counts and answers its headers.
    RATE_LIMIT_DEFAULT_PER_MIN: '100000000',
  };
  const api = await startServer(join(__dirname, '..', 'api', 'main.js'), apiEnv, `http://127.0.0.1:${apiPort}/v1/health`);
  const listUrl = `http://127.0.0.1:${apiPort}/v1/combo/agents`;
  const auth = { authorization: `Bearer ${key}` };
  const servers: Array<Awaited<ReturnType<typeof startBareKoa>>> = [];
  const results: Record<'tiny' | 'same' | 'service', LoadResult[]> = { tiny: [], same: [], service: [] };
  let listBody = '';
  try {
    for (let i = 0; i < 20; i++) {
      await fetch(listUrl, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `agent ${i}`, instructions: 'Answer briefly.' }),
      });
    }
    const probe = await fetch(listUrl, { headers: auth });
    listBody = await probe.text();
    if (!probe.ok || !probe.headers.get('x-ratelimit-remaining') || JSON.parse(listBody).data.total !== 20) {
      throw new Error(`the authenticated list did not answer as expected: ${probe.status} ${listBody.slice(0, 200)}`);
    }
    const tiny = await startBareKoa(await freePort(), TINY_BODY);
    const same = await startBareKoa(await freePort(), listBody);
    servers.push(tiny, same);
    const runs = [
      ['tiny', tiny.url, {}],
      ['same', same.url, {}],
      ['service', listUrl, auth],
    ] as const;
    for (const [, url, headers] of runs) await drive(url, headers, 2, CONNECTIONS); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, url, headers] of runs) results[name].push(await drive(url, headers, SECONDS, CONNECTIONS));
    }
  } finally {
    for (const s of servers) await stopServer(s.child);
    await stopServer(api);
    const client = await MongoClient.connect(process.env.MONGODB_URI!);
    await client.db(db).dropDatabase();
    await client.close();
  }

  const summary = (runs: LoadResult[]) => ({
    rps: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50Ms)),
    p99: median(runs.map((r) => r.p99Ms)),
    failed: runs.reduce((n, r) => n + r.non2xx + r.errors, 0),
    each: runs.map((r) => r.requestsPerSecond).join(' / '),
  });
  const tiny = summary(results.tiny);
  const same = summary(results.same);
  const service = summary(results.service);
  console.log(`\napi benchmark: ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} keep-alive connections, medians`);
  console.log('| run | req/s (median) | req/s per round | p50 ms | p99 ms | non-2xx + errors |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of [
    ['bare Koa JSON route, 35-byte body', tiny],
    [`bare Koa JSON route, the same ${listBody.length}-byte body`, same],
    ['GET /v1/combo/agents (API key, rate limit, page of 20)', service],
  ] as const) {
    console.log(`| ${name} | ${r.rps} | ${r.each} | ${r.p50} | ${r.p99} | ${r.failed} |`);
  }
  console.log(`\nthroughput ratio, service / same-body bare Koa: ${ratio(service.rps, same.rps)} (target >= 0.7)`);
  console.log(`throughput ratio, service / 35-byte bare Koa: ${ratio(service.rps, tiny.rps)}`);
}
