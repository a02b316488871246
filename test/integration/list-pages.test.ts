import type { CommandStartedEvent, Document } from 'mongodb';
import { startTestApi, type TestApi } from '../support/api';

/**
 * Lists page by cursor through the API without repeating or skipping an item while items are added
 * (ties on the creation time included), and every list query has an index that serves its filter
 * and its sort, checked on the queries the API really sends, so that a change cannot drop one unseen.
 */
let api: TestApi;
const finds: { collection: string; filter: Document; sort: Document }[] = [];
beforeAll(async () => {
  // monitorCommands: the test sees the queries the API sends to the store.
  const uri = new URL(process.env.MONGODB_URI!);
  uri.searchParams.set('monitorCommands', 'true');
  api = await startTestApi({ MONGODB_URI: uri.toString(), RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  api.services.mongo.client.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName !== 'find') return;
    const c = e.command;
    // The driver sends a sort as a Map (it keeps the order of the keys).
    const sort = c.sort instanceof Map ? (Object.fromEntries(c.sort) as Document) : ((c.sort ?? {}) as Document);
    if (Object.keys(sort).length > 0) finds.push({ collection: String(c.find), filter: (c.filter ?? {}) as Document, sort });
  });
});
afterAll(async () => {
  await api.close();
});

const get = async (path: string) => {
  const res = await api.call('GET', path, { key: api.adminKey });
  expect({ path, code: res.json.code, message: res.json.code === 0 ? 'ok' : res.json.message }).toEqual({ path, code: 0, message: 'ok' });
  return res.json.data as { items: Record<string, unknown>[]; total?: number; next_cursor: string | null };
};
const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', path, { key: api.adminKey, body });
  expect(res.json).toMatchObject({ code: 0 });
  return res.json.data as Record<string, string>;
};

/** Deliveries in the stored shape, all created at the same instant: only the `_id` tie-break orders them. */
const deliveryDocs = (prefix: string, count: number, at: Date, event: string) =>
  Array.from({ length: count }, (_, i) => ({
    _id: `dlv_${prefix}${String(i).padStart(4, '0')}`,
    tenant_id: 'default',
    subscription_id: 'whs_listpages',
    event_id: `evt_${prefix}${i}`,
    event,
    envelope: { event_id: `evt_${prefix}${i}`, event, created_at: at.toISOString(), data: {} },
    status: 'delivered',
    attempt_count: 1,
    attempts: [{ attempt: 1, ok: true, status_code: 200, latency_ms: 3, error: null, at }],
    workflow_id: `wf_${prefix}${i}`,
    replay_of: null,
    replay_id: null,
    created_at: at,
    delivered_at: at,
    dead_at: null,
  }));

/** Follows `next_cursor` from the first page to the last, calling `between` after each page. */
async function walk(path: string, between: (pageIndex: number) => Promise<void>) {
  const seen: string[] = [];
  let page = await get(path);
  for (let i = 0; ; i++) {
    seen.push(...page.items.map((d) => String(d.delivery_id ?? d.session_id)));
    await between(i);
    if (!page.next_cursor) return seen;
    expect(page.items.length).toBeGreaterThan(0);
    page = await get(`${path}&after=${encodeURIComponent(page.next_cursor)}`);
    expect(page.total).toBeUndefined();
  }
}

it('pages deliveries by cursor with a filter, neither repeating nor skipping one while others are added, ties included', async () => {
  const deliveries = api.services.mongo.db.collection('webhook_deliveries');
  const at = new Date(Date.now() - 60_000);
  const wanted = deliveryDocs('a', 23, at, 'list.pages');
  await deliveries.insertMany([...wanted, ...deliveryDocs('o', 5, at, 'other.event')] as unknown as Document[]);

  let added = 0;
  const seen = await walk('/v1/webhook/deliveries?event=list.pages&page_size=4', async () => {
    // Newer ones, older ones and ones tied with the listed instant arrive while the client pages.
    const more = [...deliveryDocs(`n${added}`, 1, new Date(), 'list.pages'), ...deliveryDocs(`t${added}`, 1, at, 'other.event')];
    added++;
    await deliveries.insertMany(more as unknown as Document[]);
  });
  const expected = wanted.map((d) => d._id).sort((x, y) => (x < y ? 1 : -1));
  expect(seen).toEqual(expected);

  // The first page still counts, as before; include_total=false spares the count.
  expect((await get('/v1/webhook/deliveries?event=list.pages&page_size=4')).total).toBe(23 + added);
  expect((await get('/v1/webhook/deliveries?event=list.pages&page_size=4&include_total=false')).total).toBeUndefined();
  // Page numbers still work beside cursors, and carry a cursor to continue from.
  const second = await get('/v1/webhook/deliveries?event=list.pages&page_size=4&page=2');
  expect(second.items).toHaveLength(4);
  expect(second.next_cursor).toEqual(expect.any(String));
});

it('pages sessions by cursor with a filter while sessions are opened, and refuses a cursor that is not one of the list', async () => {
  const agentA = (await post('/v1/combo/agents', { name: 'pages A' })).agent_id!;
  const agentB = (await post('/v1/combo/agents', { name: 'pages B' })).agent_id!;
  const opened: string[] = [];
  for (let i = 0; i < 7; i++) {
    opened.push((await post(`/v1/combo/agents/${agentA}/sessions`, { user_id: `u${i}` })).session_id!);
    await post(`/v1/combo/agents/${agentB}/sessions`, { user_id: `u${i}` });
  }
  const seen = await walk(`/v1/combo/sessions?agent_id=${agentA}&page_size=2`, async () => {
    await post(`/v1/combo/agents/${agentA}/sessions`, { user_id: 'late' });
  });
  expect(seen).toEqual([...opened].reverse());

  for (const bad of ['nonsense', Buffer.from('{"f":"timestamp,_id","v":[1,2]}').toString('base64url')]) {
    const res = await api.call('GET', `/v1/combo/sessions?after=${bad}`, { key: api.adminKey });
    expect(res.json.code).toBe(10001);
  }
});

/** The fields a filter fixes to one value (MongoDB walks them as one index range); operators and $and/$or are not. */
const equalityFields = (filter: Document) =>
  Object.entries(filter)
    .filter(([k, v]) => !k.startsWith('$') && (typeof v !== 'object' || v === null || v instanceof Date))
    .map(([k]) => k);

/**
 * An index serves a sorted page when its key is the filter's equality fields (in any order) followed
 * by the sort fields in order, all in the sort's directions or all reversed: then the page is one
 * index range read in order. An equality field left out of the key would be a filter applied while
 * walking a wider range (reading a whole tenant to find one user's sessions), so it does not count.
 */
function servingIndex(indexes: Document[], filter: Document, sort: Document): string | undefined {
  const equal = new Set(equalityFields(filter));
  const sortFields = Object.entries(sort);
  return indexes.find((ix) => {
    const key = Object.entries(ix.key as Document);
    const lead = key.slice(0, equal.size);
    if (!lead.every(([f]) => equal.has(f))) return false;
    const rest = key.slice(equal.size, equal.size + sortFields.length);
    if (rest.length !== sortFields.length) return false;
    const same = rest.every(([f, d], i) => f === sortFields[i]![0] && d === sortFields[i]![1]);
    const reversed = rest.every(([f, d], i) => f === sortFields[i]![0] && d === -sortFields[i]![1]);
    return same || reversed;
  })?.name as string | undefined;
}

/** Stage names of a MongoDB winning plan, depth first. */
const stagesOf = (plan: Document): string[] => [
  String(plan.stage),
  ...(plan.inputStage ? stagesOf(plan.inputStage as Document) : []),
  ...((plan.inputStages as Document[] | undefined) ?? []).flatMap(stagesOf),
];

it('serves every list query by an index: on MongoDB the winning plan, on FerretDB the index key', async () => {
  const agent = (await post('/v1/combo/agents', { name: 'indexed' })).agent_id!;
  const session = (await post(`/v1/combo/agents/${agent}/sessions`, { user_id: 'ix' })).session_id!;
  const kb = (await post('/v1/kb', { name: 'indexed kb' })).kb_id!;
  for (const name of ['indexed provider 1', 'indexed provider 2'])
    await post('/v1/model-providers', { name, kind: 'openai', models: [{ id: 'gpt-4o-mini' }] });
  const paths = [
    '/v1/combo/agents',
    '/v1/api-keys',
    '/v1/cron',
    '/v1/events',
    '/v1/events?event=session.created',
    '/v1/integrations',
    '/v1/model-providers',
    '/v1/kb',
    `/v1/kb/${kb}/documents`,
    `/v1/kb/${kb}/documents?status=ready`,
    `/v1/combo/agents/${agent}/sessions`,
    '/v1/combo/sessions',
    '/v1/combo/sessions?user_id=ix',
    '/v1/combo/sessions?status=active',
    `/v1/combo/sessions/${session}/messages`,
    '/v1/skills',
    '/v1/event-trigger',
    '/v1/webhook/subscriptions',
    '/v1/webhook/deliveries',
    '/v1/webhook/deliveries?event=list.pages',
    '/v1/webhook/deliveries?event_id=evt_a1',
    '/v1/webhook/deliveries?subscription_id=whs_listpages',
    '/v1/webhook/deliveries?status=delivered&since=2020-01-01T00:00:00Z',
    '/v1/webhook/dead-letters',
    '/v1/combo/completions',
    '/v1/combo/completions?status=completed',
    `/v1/combo/sessions/${session}/completions`,
    `/v1/combo/agents/${agent}/completions`,
  ];
  finds.length = 0;
  for (const path of paths) {
    const sep = path.includes('?') ? '&' : '?';
    const first = await get(`${path}${sep}page_size=1`);
    // A cursor page too: its query adds the bound after the cursor.
    if (first.next_cursor) await get(`${path}${sep}page_size=1&after=${encodeURIComponent(first.next_cursor)}`);
  }
  const db = api.services.mongo.db;
  const unserved: string[] = [];
  for (const { collection, filter, sort } of finds) {
    const explained = await db.command({ explain: { find: collection, filter, sort, limit: 2 }, verbosity: 'queryPlanner' });
    const winning = (explained.queryPlanner as Document | undefined)?.winningPlan as Document | undefined;
    if (winning && !('Plan' in (explained.queryPlanner as Document))) {
      // MongoDB: an index scan in the order of the sort, no sort in memory, no collection scan.
      const stages = stagesOf(winning);
      if (!stages.includes('IXSCAN') || stages.includes('SORT') || stages.includes('COLLSCAN')) {
        unserved.push(`${collection} ${JSON.stringify(filter)} ${JSON.stringify(sort)}: ${stages.join('<')}`);
      }
    } else {
      // FerretDB 1.x sorts in memory whatever the indexes: the equality filter reaches PostgreSQL, and an
      // index with the right key must exist for the MongoDB the service also runs on.
      expect(explained.filterPushdown).toBe(true);
      const indexes = await db.collection(collection).listIndexes().toArray();
      if (!servingIndex(indexes, filter, sort)) unserved.push(`${collection} ${JSON.stringify(filter)} ${JSON.stringify(sort)}`);
    }
  }
  expect(new Set(finds.map((f) => f.collection)).size).toBeGreaterThanOrEqual(12);
  expect(unserved).toEqual([]);
});
