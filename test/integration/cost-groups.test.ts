import { randomToken } from '../../common/ids';
import { periodOf } from '../../common/cost-periods';
import type { CostRunDoc } from '../../stores/cost-runs';
import { dateUndatedCostRuns } from '../../stores/migrations';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, DEFAULT_USAGE } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/**
 * GET /v1/costs?group_by=agent|day on the real stack: completions run by the real worker against a
 * scripted model record their agent with their cost, and the groups are summed by the database.
 */
const model = new ScriptedUpstream();
let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  const modelUrl = await model.start();
  model.reply = () => ({ body: chatAnswer('done') });
  api = await startTestApi({
    LLM_BASE_URL: modelUrl,
    LLM_MODEL: 'scripted-model',
    RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
    RATE_LIMIT_DEFAULT_PER_MIN: '100000',
  });
  worker = await startTestWorker(api, { dispatcher: false });
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await model.stop();
});

const SUMMARY_KEYS = [
  'amount',
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'period',
  'runs',
  'threshold_amount',
  'threshold_amount_source',
  'threshold_exceeded',
  'threshold_source',
  'threshold_tokens',
  'tokens',
];
const newTenant = async () => {
  const tenant = `t-${randomToken(8)}`;
  return { tenant, member: await consoleToken({ tenant_id: tenant, sub: 'user', roles: ['member'] }) };
};
const costs = (key: string, query = '') => api.call('GET', `/v1/costs${query}`, { key });
const record = (
  tenantId: string,
  agentId: string | null,
  tokens: number,
  at: Date,
  spent: { inputTokens?: number; outputTokens?: number; amount?: number } = {},
) =>
  api.services.commands.costs.recordRunCost({
    tenantId,
    traceId: `trc_${randomToken(20)}`,
    agentId,
    tokens,
    durationMs: tokens * 2,
    at,
    ...spent,
  });

it("records each run's agent with its cost and sums the tenant's runs per agent, beside the unchanged summary", async () => {
  const key = api.adminKey;
  const agentOf = async (name: string) =>
    (await api.call('POST', '/v1/combo/agents', { key, body: { name } })).json.data.agent_id as string;
  const [busy, quiet] = [await agentOf('busy'), await agentOf('quiet')];
  const dayBefore = periodOf(new Date(), 'day');
  const complete = async (agentId: string) => {
    const session = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key, body: {} })).json.data;
    const reply = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key,
      body: { session_id: session.session_id, question: 'hello' },
    });
    expect(reply.json.code).toBe(0);
  };
  await complete(busy);
  await complete(busy);
  await complete(quiet);
  await eventually(async () => ((await api.services.mongo.db.collection('cost_queue').countDocuments()) === 0 ? true : undefined), 20_000);
  const dayAfter = periodOf(new Date(), 'day');

  const plain = await costs(key);
  expect(Object.keys(plain.json.data).sort()).toEqual(SUMMARY_KEYS);
  // This installation's model has no price: the split adds up, the money stays 0.
  expect(plain.json.data).toMatchObject({
    tokens: 3 * DEFAULT_USAGE.total_tokens,
    input_tokens: 3 * DEFAULT_USAGE.prompt_tokens,
    output_tokens: 3 * DEFAULT_USAGE.completion_tokens,
    amount: 0,
    runs: 3,
  });

  const grouped = await costs(key, '?group_by=agent');
  expect(grouped.json.code).toBe(0);
  const { group_by, since, until, groups, ...summary } = grouped.json.data;
  expect(summary).toEqual(plain.json.data);
  expect(group_by).toBe('agent');
  expect(Date.parse(until) - Date.parse(since)).toBe(30 * 86_400_000);
  expect(Math.abs(Date.parse(until) - Date.now())).toBeLessThan(60_000);
  expect(groups.map((g: { agent_id: string; tokens: number; runs: number }) => [g.agent_id, g.tokens, g.runs])).toEqual([
    [busy, 2 * DEFAULT_USAGE.total_tokens, 2],
    [quiet, DEFAULT_USAGE.total_tokens, 1],
  ]);
  for (const g of groups) expect(g.duration_ms).toBeGreaterThanOrEqual(0);
  const totalDuration = groups.reduce((sum: number, g: { duration_ms: number }) => sum + g.duration_ms, 0);
  expect(totalDuration).toBe(plain.json.data.duration_ms);

  // By day: the UTC day of the runs holds the three (two days, oldest first, should midnight have passed while they ran).
  const byDay = await costs(key, '?group_by=day');
  const days = byDay.json.data.groups as Array<{ day: string; tokens: number; duration_ms: number; runs: number }>;
  const runDays = [...new Set([dayBefore, dayAfter])];
  expect(days.map((g) => g.day)).toEqual(runDays.filter((day) => days.some((g) => g.day === day)));
  const sum = (field: 'tokens' | 'duration_ms' | 'runs') => days.reduce((total, g) => total + g[field], 0);
  expect({ tokens: sum('tokens'), duration_ms: sum('duration_ms'), runs: sum('runs') }).toEqual({
    tokens: 3 * DEFAULT_USAGE.total_tokens,
    duration_ms: totalDuration,
    runs: 3,
  });

  // Another tenant sees none of it.
  const other = await newTenant();
  expect((await costs(other.member, '?group_by=agent')).json.data).toMatchObject({ groups: [], tokens: 0, runs: 0 });
});

it('sums per UTC day over [since, until), oldest first, dates meaning their 00:00 UTC', async () => {
  const { tenant, member } = await newTenant();
  await record(tenant, 'agt_a', 100, new Date('2026-03-01T00:00:00.000Z'));
  await record(tenant, 'agt_b', 50, new Date('2026-03-01T23:59:59.999Z'));
  await record(tenant, 'agt_a', 10, new Date('2026-03-03T12:00:00.000Z'));
  await record(tenant, 'agt_a', 1, new Date('2026-03-04T00:00:00.000Z'));
  await record(tenant, 'agt_a', 7, new Date('2026-02-28T23:59:59.000Z'));

  const march = await costs(member, '?group_by=day&since=2026-03-01&until=2026-03-04');
  expect(march.json.data).toMatchObject({
    group_by: 'day',
    since: '2026-03-01T00:00:00.000Z',
    until: '2026-03-04T00:00:00.000Z',
    groups: [
      { day: '2026-03-01', tokens: 150, duration_ms: 300, runs: 2 },
      { day: '2026-03-03', tokens: 10, duration_ms: 20, runs: 1 },
    ],
  });
  // Timestamps with an offset are the instants they name.
  const shifted = await costs(member, `?group_by=agent&since=${encodeURIComponent('2026-03-01T01:00:00+01:00')}&until=2026-03-05`);
  expect(shifted.json.data.since).toBe('2026-03-01T00:00:00.000Z');
  expect(shifted.json.data.groups).toEqual([
    { agent_id: 'agt_a', tokens: 111, duration_ms: 222, runs: 3, input_tokens: 0, output_tokens: 0, amount: 0 },
    { agent_id: 'agt_b', tokens: 50, duration_ms: 100, runs: 1, input_tokens: 0, output_tokens: 0, amount: 0 },
  ]);
  // The period summary is unchanged by the range.
  expect(march.json.data).toMatchObject({ period: periodOf(new Date()), tokens: 0, runs: 0 });
  const feb = await costs(member, '?group_by=day&since=2026-02-01&until=2026-03-01&period=2026-02');
  expect(feb.json.data).toMatchObject({ period: '2026-02', tokens: 7, groups: [{ day: '2026-02-28', tokens: 7, runs: 1 }] });
});

it('counts runs recorded before agents were kept under agent_id null, and by day once the worker has dated them', async () => {
  const { tenant, member } = await newTenant();
  await record(tenant, 'agt_new', 5, new Date('2026-05-02T10:00:00.000Z'), { inputTokens: 3, outputTokens: 2, amount: 0.000125 });
  // As earlier versions recorded runs: no agent, no day, no split of the tokens nor money (they sum as 0).
  await api.services.mongo.db.collection<CostRunDoc>('cost_runs').insertMany([
    {
      _id: `trc_${randomToken(20)}`,
      tenant_id: tenant,
      period: '2026-05',
      tokens: 30,
      duration_ms: 3,
      at: new Date('2026-05-01T08:00:00Z'),
    },
    {
      _id: `trc_${randomToken(20)}`,
      tenant_id: tenant,
      period: '2026-05',
      tokens: 40,
      duration_ms: 4,
      at: new Date('2026-05-02T08:00:00Z'),
    },
  ]);
  const range = '&since=2026-05-01&until=2026-06-01';
  const byAgent = await costs(member, `?group_by=agent${range}`);
  expect(byAgent.json.data.groups).toEqual([
    { agent_id: null, tokens: 70, duration_ms: 7, runs: 2, input_tokens: 0, output_tokens: 0, amount: 0 },
    { agent_id: 'agt_new', tokens: 5, duration_ms: 10, runs: 1, input_tokens: 3, output_tokens: 2, amount: 0.000125 },
  ]);
  // Not dated yet: left out of the days.
  expect((await costs(member, `?group_by=day${range}`)).json.data.groups).toEqual([
    { day: '2026-05-02', tokens: 5, duration_ms: 10, runs: 1, input_tokens: 3, output_tokens: 2, amount: 0.000125 },
  ]);
  expect(await dateUndatedCostRuns(api.services.mongo.db)).toBeGreaterThanOrEqual(2);
  expect(await dateUndatedCostRuns(api.services.mongo.db)).toBe(0);
  expect((await costs(member, `?group_by=day${range}`)).json.data.groups).toEqual([
    { day: '2026-05-01', tokens: 30, duration_ms: 3, runs: 1, input_tokens: 0, output_tokens: 0, amount: 0 },
    { day: '2026-05-02', tokens: 45, duration_ms: 14, runs: 2, input_tokens: 3, output_tokens: 2, amount: 0.000125 },
  ]);
});

it('refuses ranges it cannot answer, naming the field', async () => {
  const key = api.adminKey;
  const refused: Array<[string, string]> = [
    ['?group_by=week', 'query.group_by'],
    ['?group_by=day&since=2026-03-02&until=2026-03-01', 'query.until'],
    ['?group_by=day&since=2026-03-01&until=2026-03-01', 'query.until'],
    ['?group_by=day&since=2025-01-01&until=2026-01-03', 'query.since'],
    ['?group_by=agent&since=2020-01-01', 'query.since'],
    ['?group_by=day&since=2026-13-01', 'query.since'],
    ['?group_by=day&since=yesterday', 'query.since'],
    ['?group_by=day&until=2026-03-01T10:00:00', 'query.until'],
    ['?since=2026-03-01', 'query.since'],
    ['?until=2026-03-01', 'query.until'],
  ];
  for (const [query, field] of refused)
    expect({ query, json: (await costs(key, query)).json }).toMatchObject({ query, json: { code: 10001, data: { field } } });
  // 366 days is the most.
  expect((await costs(key, '?group_by=day&since=2025-01-01&until=2026-01-02')).json.code).toBe(0);
});
