import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type Document, MongoClient } from 'mongodb';
import { randomToken } from '../common/ids';
import { freePort, median, ratio, startServer, stopServer } from './load';

/** Rows of each big collection at the small and the large size; requests per list and size. */
const SMALL = Number(process.env.BENCH_LISTS_SMALL ?? 1_000);
const LARGE = Number(process.env.BENCH_LISTS_LARGE ?? 100_000);
const REQUESTS = Number(process.env.BENCH_LISTS_REQUESTS ?? 5);
const INSERT_BATCH = 1_000;
/** The bench's own tenant (its bootstrap key's, in a database of its own). */
const TENANT = 'default';

type Seeder = (i: number, at: Date) => Document;

/** Each big collection in its stored shape, one row per index i (created one second apart). */
const seeders: Record<string, Seeder> = {
  webhook_deliveries: (i, at) => ({
    _id: `dlv_bench${i}`,
    tenant_id: TENANT,
    subscription_id: 'whs_bench',
    event_id: `evt_bench${i}`,
    event: i % 2 ? 'session.created' : 'run.completed',
    envelope: { event_id: `evt_bench${i}`, event: 'session.created', created_at: at.toISOString(), data: { session_id: `ses_bench${i}` } },
    status: i % 10 === 0 ? 'dead' : 'delivered',
    attempt_count: 1,
    attempts: [{ attempt: 1, ok: i % 10 !== 0, status_code: i % 10 === 0 ? 500 : 200, latency_ms: 12, error: null, at }],
    workflow_id: `wf_bench${i}`,
    replay_of: null,
    replay_id: null,
    created_at: at,
    delivered_at: i % 10 === 0 ? null : at,
    dead_at: i % 10 === 0 ? at : null,
  }),
  events: (i, at) => ({
    _id: `evt_bench${i}`,
    event: 'session.created',
    tenant_id: TENANT,
    timestamp: at,
    data: { session_id: `ses_bench${i}` },
  }),
  sessions: (i, at) => ({
    _id: `ses_bench${i}`,
    tenant_id: TENANT,
    agent_id: 'agt_bench',
    user_id: `user${i % 50}`,
    name: `session ${i}`,
    status: 'active',
    metadata: {},
    created_at: at,
    updated_at: at,
    archived_at: null,
    outbox: [],
  }),
};

/** Each list through the API: its first page as before (page 1, counting `total`) and a page by cursor. */
const lists: { name: string; collection: string; path: string }[] = [
  { name: 'deliveries', collection: 'webhook_deliveries', path: '/v1/webhook/deliveries' },
  { name: 'deliveries ?event', collection: 'webhook_deliveries', path: '/v1/webhook/deliveries?event=session.created' },
  { name: 'dead letters', collection: 'webhook_deliveries', path: '/v1/webhook/dead-letters' },
  { name: 'events', collection: 'events', path: '/v1/events' },
  { name: 'sessions', collection: 'sessions', path: '/v1/combo/sessions' },
];
const ONLY = process.env.BENCH_LISTS_ONLY?.split(',');

async function seed(db: ReturnType<MongoClient['db']>, collection: string, from: number, to: number) {
  const base = Date.UTC(2026, 0, 1);
  for (let i = from; i < to; i += INSERT_BATCH) {
    const docs = [];
    for (let j = i; j < Math.min(to, i + INSERT_BATCH); j++) docs.push(seeders[collection]!(j, new Date(base + j * 1000)));
    await db.collection(collection).insertMany(docs, { ordered: false });
  }
}

async function timed(
  url: string,
  headers: Record<string, string>,
): Promise<{ ms: number; body: { data: { next_cursor: string | null } } }> {
  const start = performance.now();
  const res = await fetch(url, { headers });
  const body = (await res.json()) as { code: number; data: { next_cursor: string | null } };
  if (body.code !== 0) throw new Error(`${url}: ${JSON.stringify(body).slice(0, 200)}`);
  return { ms: performance.now() - start, body };
}

/**
 * Seeds SMALL then LARGE rows of each big collection directly in the store (bulk inserts in the stored
 * shape) and reports each list's p50 through the API at both sizes and their ratio (target ≤ 2): the
 * first page as it was always asked for (page 1 with `total`), and a page by cursor (`after`, three
 * pages deep). BENCH_LISTS_SMALL / _LARGE / _REQUESTS / _ONLY (list names, comma-separated) shrink it.
 */
export async function benchLists(): Promise<void> {
  const key = `combo_${randomToken(8)}_${randomToken(32)}`;
  const apiPort = await freePort();
  const dbName = `bench_${randomToken(6).toLowerCase()}`;
  const api = await startServer(
    join(__dirname, '..', 'api', 'main.js'),
    {
      ...process.env,
      API_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      MONGODB_DB: dbName,
      BOOTSTRAP_API_KEY: key,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000000',
    },
    `http://127.0.0.1:${apiPort}/v1/health`,
  );
  const client = await MongoClient.connect(process.env.MONGODB_URI!);
  const db = client.db(dbName);
  const headers = { authorization: `Bearer ${key}` };
  const chosen = lists.filter((l) => !ONLY || ONLY.includes(l.name));
  const collections = [...new Set(chosen.map((l) => l.collection))];
  const p50: Record<string, Record<number, { first: number; cursor: number }>> = {};
  try {
    let seeded = 0;
    for (const size of [SMALL, LARGE]) {
      const started = performance.now();
      for (const c of collections) await seed(db, c, seeded, size);
      process.stdout.write(`lists: seeded ${size} rows of ${collections.join(', ')} in ${Math.round(performance.now() - started)} ms\n`);
      seeded = size;
      for (const list of chosen) {
        const url = `http://127.0.0.1:${apiPort}${list.path}${list.path.includes('?') ? '&' : '?'}page_size=20`;
        const first: number[] = [];
        const cursor: number[] = [];
        for (let r = 0; r < REQUESTS; r++) {
          const page1 = await timed(url, headers);
          first.push(page1.ms);
          let next = page1.body.data.next_cursor;
          for (let depth = 0; depth < 3 && next; depth++) {
            const page = await timed(`${url}&after=${encodeURIComponent(next)}`, headers);
            if (depth === 2) cursor.push(page.ms);
            next = page.body.data.next_cursor;
          }
        }
        (p50[list.name] ??= {})[size] = { first: median(first), cursor: median(cursor) };
      }
    }
  } finally {
    await stopServer(api);
    await db.dropDatabase();
    await client.close();
  }
  const round = (ms: number) => Math.round(ms * 10) / 10;
  for (const list of chosen) {
    const small = p50[list.name]![SMALL]!;
    const large = p50[list.name]![LARGE]!;
    process.stdout.write(
      `lists: ${list.name.padEnd(18)} page 1 with total p50 ${round(small.first)} ms at ${SMALL}, ${round(large.first)} ms at ${LARGE}: ` +
        `${ratio(large.first, small.first)}x | by cursor p50 ${round(small.cursor)} ms, ${round(large.cursor)} ms: ${ratio(large.cursor, small.cursor)}x (target <= 2)\n`,
    );
  }
}
