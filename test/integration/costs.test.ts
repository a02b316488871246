import { randomToken } from '../../common/ids';
import { type CostCommands, createCostCommands } from '../../commands/costs';
import { periodOf } from '../../common/cost-periods';
import { createCostLedger } from '../../stores/cost-ledger';
import { createCostQueue } from '../../stores/cost-queue';
import { createCostRunStore } from '../../stores/cost-runs';
import { createCostSettings } from '../../stores/cost-settings';
import { createEventLog } from '../../stores/event-log';
import { consoleToken, startTestApi, type TestApi } from '../support/api';

/**
 * Cost accounting as the completion worker records it (the cost commands' recordRunCost) and as clients
 * read it (GET /v1/costs, PUT /v1/costs/threshold, the events log), on the real stack.
 */
describe('per-tenant costs', () => {
  let api: TestApi;
  let costs: CostCommands;
  const DEFAULT_THRESHOLD = 5_000;
  const DEFAULT_AMOUNT_THRESHOLD = 250;

  beforeAll(async () => {
    api = await startTestApi({
      COST_THRESHOLD_TOKENS: String(DEFAULT_THRESHOLD),
      COST_THRESHOLD_AMOUNT: String(DEFAULT_AMOUNT_THRESHOLD),
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    const db = api.services.mongo.db;
    // Built the way the worker builds it: its own stores on the same database.
    costs = createCostCommands({
      costRuns: createCostRunStore(db),
      costLedger: createCostLedger(db),
      costSettings: createCostSettings(db, {
        defaultThresholdTokens: api.config.COST_THRESHOLD_TOKENS,
        defaultThresholdAmount: api.config.COST_THRESHOLD_AMOUNT,
      }),
      costQueue: createCostQueue(db),
      eventLog: createEventLog(db),
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const newTenant = async () => {
    const tenant = `t-${randomToken(8)}`;
    return {
      tenant,
      admin: await consoleToken({ tenant_id: tenant, sub: 'boss', roles: ['admin'] }),
      member: await consoleToken({ tenant_id: tenant, sub: 'user', roles: ['member'] }),
    };
  };
  /** A run of `tokens` (a fifth of them generated) and, when given, money. */
  const run = (tenantId: string, tokens: number, at = new Date(), traceId = `trc_${randomToken(20)}`, amount?: number) =>
    costs.recordRunCost({
      tenantId,
      traceId,
      tokens,
      durationMs: tokens / 10,
      at,
      inputTokens: tokens - tokens / 5,
      outputTokens: tokens / 5,
      ...(amount !== undefined ? { amount } : {}),
    });
  /**
   * The costs of the period `at` falls in: the current period (the default), unless the UTC month has
   * changed since `at` (a test running over a month's end); then that period by name.
   */
  const costsOf = async (key: string, at: Date) => {
    const current = await api.call('GET', '/v1/costs', { key });
    return current.json.data?.period === periodOf(at) ? current : api.call('GET', `/v1/costs?period=${periodOf(at)}`, { key });
  };
  /** Sleeps into the next UTC month when less than `seconds` of this one remain: for a test that reads the current period more than once. */
  const clearOfMonthEnd = async (seconds = 30) => {
    const now = new Date();
    const msLeft = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime();
    if (msLeft < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, msLeft + 100));
  };
  const thresholdEvents = async (admin: string) => {
    const res = await api.call('GET', '/v1/events?event=cost.threshold_exceeded&page_size=100', { key: admin });
    expect(res.json.code).toBe(0);
    return res.json.data.items as Array<{ event_id: string; tenant_id: string; timestamp: string; data: Record<string, unknown> }>;
  };

  it('accumulates runs into the current period and counts a repeated trace id once', async () => {
    const { tenant, member } = await newTenant();
    // One moment for the runs: a month's end between them would put them in two periods.
    const at = new Date();
    const first = await run(tenant, 100, at, 'trc_repeated0000000001');
    expect(first).toEqual({
      period: periodOf(at),
      totals: { tokens: 100, duration_ms: 10, runs: 1, input_tokens: 80, output_tokens: 20, amount: 0 },
      thresholdExceeded: false,
    });
    await run(tenant, 250, at, undefined, 0.1234567);
    // An activity retry of the first run: same trace id, nothing added.
    const retried = await run(tenant, 100, at, 'trc_repeated0000000001');
    expect(retried.totals).toEqual({ tokens: 350, duration_ms: 35, runs: 2, input_tokens: 280, output_tokens: 70, amount: 0.123457 });

    const res = await costsOf(member, at);
    expect(res.json).toMatchObject({
      code: 0,
      data: {
        period: periodOf(at),
        tokens: 350,
        duration_ms: 35,
        runs: 2,
        input_tokens: 280,
        output_tokens: 70,
        amount: 0.123457,
        threshold_tokens: DEFAULT_THRESHOLD,
        threshold_source: 'default',
        threshold_amount: DEFAULT_AMOUNT_THRESHOLD,
        threshold_amount_source: 'default',
        threshold_exceeded: false,
      },
    });
    const otherTenant = await newTenant();
    const theirs = await api.call('GET', '/v1/costs', { key: otherTenant.member });
    expect(theirs.json.data).toMatchObject({ tokens: 0, runs: 0, duration_ms: 0, input_tokens: 0, output_tokens: 0, amount: 0 });
  });

  it('records the threshold event exactly once per period when 20 concurrent runs cross it, and retries add nothing', async () => {
    const { tenant, admin } = await newTenant();
    const put = await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: 1_000 } });
    expect(put.json).toMatchObject({
      code: 0,
      data: { threshold_tokens: 1_000, threshold_source: 'tenant', tokens: 0, threshold_exceeded: false },
    });

    const at = new Date();
    const traceIds = Array.from({ length: 20 }, () => `trc_${randomToken(20)}`);
    const results = await Promise.all(traceIds.map((traceId) => run(tenant, 100, at, traceId)));
    // Every run got its own place: no increment lost to the concurrency.
    expect(results.map((r) => r.totals.tokens).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 100));
    expect(results.filter((r) => r.thresholdExceeded)).toHaveLength(11);

    await Promise.all(traceIds.map((traceId) => run(tenant, 100, at, traceId)));
    const summary = await costsOf(admin, at);
    expect(summary.json.data).toMatchObject({ tokens: 2_000, runs: 20, duration_ms: 200, threshold_exceeded: true });

    const events = await thresholdEvents(admin);
    expect(events).toHaveLength(1);
    expect(events[0]!).toMatchObject({
      tenant_id: tenant,
      data: { tenant_id: tenant, period: periodOf(at), threshold: 1_000, unit: 'tokens' },
    });
    expect(events[0]!.data.amount).toBeGreaterThanOrEqual(1_000);
    expect(events[0]!.data.amount).toBeLessThanOrEqual(2_000);
    const stored = await api.services.mongo.db.collection('events').countDocuments({ tenant_id: tenant, event: 'cost.threshold_exceeded' });
    expect(stored).toBe(1);
  });

  it('starts every period afresh, with its own threshold event', async () => {
    const { tenant, admin, member } = await newTenant();
    await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: 300 } });
    await run(tenant, 200, new Date('2026-01-31T23:59:59.999Z'));
    const january = await run(tenant, 200, new Date('2026-01-15T08:00:00Z'));
    expect(january).toMatchObject({ period: '2026-01', totals: { tokens: 400, runs: 2 }, thresholdExceeded: true });
    const february = await run(tenant, 200, new Date('2026-02-01T00:00:00.000Z'));
    expect(february).toMatchObject({ period: '2026-02', totals: { tokens: 200, runs: 1 }, thresholdExceeded: false });

    expect((await api.call('GET', '/v1/costs?period=2026-01', { key: member })).json.data).toMatchObject({
      period: '2026-01',
      tokens: 400,
      runs: 2,
      threshold_exceeded: true,
    });
    expect((await api.call('GET', '/v1/costs?period=2026-02', { key: member })).json.data).toMatchObject({
      period: '2026-02',
      tokens: 200,
      runs: 1,
      threshold_exceeded: false,
    });
    expect((await thresholdEvents(admin)).map((e) => e.data.period)).toEqual(['2026-01']);

    await run(tenant, 150, new Date('2026-02-20T00:00:00Z'));
    const events = await thresholdEvents(admin);
    expect(events.map((e) => [e.data.period, e.data.amount])).toEqual([
      ['2026-02', 350],
      ['2026-01', 400],
    ]);
    expect(events[0]!.timestamp).toBe('2026-02-20T00:00:00.000Z');
  });

  it('lets an administrator set or turn off the threshold; a period already over a new threshold records its event then', async () => {
    // The threshold applies to the current period, read on each call below: all of them inside one month.
    await clearOfMonthEnd();
    const { tenant, admin, member } = await newTenant();
    await run(tenant, 600);
    expect(await thresholdEvents(admin)).toHaveLength(0);

    const off = await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: null } });
    expect(off.json.data).toMatchObject({ threshold_tokens: null, threshold_source: 'none', threshold_exceeded: false, tokens: 600 });
    await run(tenant, DEFAULT_THRESHOLD);
    expect(await thresholdEvents(admin)).toHaveLength(0);

    const lowered = await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: 300 } });
    expect(lowered.json.data).toMatchObject({ threshold_tokens: 300, threshold_source: 'tenant', threshold_exceeded: true });
    const events = await thresholdEvents(admin);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({
      tenant_id: tenant,
      period: periodOf(new Date()),
      amount: 600 + DEFAULT_THRESHOLD,
      threshold: 300,
      unit: 'tokens',
    });
    await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: 200 } });
    await run(tenant, 10);
    expect(await thresholdEvents(admin)).toHaveLength(1);

    const asMember = await api.call('PUT', '/v1/costs/threshold', { key: member, body: { threshold_tokens: 10 } });
    expect(asMember.json.code).toBe(10003);
    expect((await api.call('GET', '/v1/costs', { key: member })).json.data.threshold_tokens).toBe(200);
  }, 90_000); // up to 30 s of waiting for the next month

  it('goes back to the installation default when the tenant removes its own threshold', async () => {
    const { admin, member } = await newTenant();
    await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: null } });
    expect((await api.call('DELETE', '/v1/costs/threshold', { key: member })).json.code).toBe(10003);
    const reset = await api.call('DELETE', '/v1/costs/threshold', { key: admin });
    expect(reset.json).toMatchObject({ code: 0, data: { threshold_tokens: DEFAULT_THRESHOLD, threshold_source: 'default' } });
    // Removing what is already gone is the same answer.
    expect((await api.call('DELETE', '/v1/costs/threshold', { key: admin })).json.data.threshold_source).toBe('default');
    expect((await api.call('GET', '/v1/costs', { key: admin })).json.data).toMatchObject({
      threshold_tokens: DEFAULT_THRESHOLD,
      threshold_source: 'default',
    });
  });

  it('keeps a money threshold beside the token threshold: one event per period and unit, each left as it is when the other is set', async () => {
    await clearOfMonthEnd();
    const { tenant, admin, member } = await newTenant();
    // Only the money threshold: the token threshold stays the installation's.
    const put = await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_amount: 1.5 } });
    expect(put.json.data).toMatchObject({
      threshold_amount: 1.5,
      threshold_amount_source: 'tenant',
      threshold_tokens: DEFAULT_THRESHOLD,
      threshold_source: 'default',
      threshold_exceeded: false,
    });
    const at = new Date();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await run(tenant, 100, at, undefined, 0.5));
    expect(results.map((r) => [r.totals.amount, r.thresholdExceeded])).toEqual([
      [0.5, false],
      [1, false],
      [1.5, true],
      [2, true],
    ]);
    const money = await thresholdEvents(admin);
    expect(money).toHaveLength(1);
    expect(money[0]!.data).toEqual({ tenant_id: tenant, period: periodOf(at), amount: 1.5, threshold: 1.5, unit: 'amount' });

    // The token threshold alone: the money threshold stays; the period is over it, so its own event comes now.
    const tokens = await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_tokens: 300 } });
    expect(tokens.json.data).toMatchObject({
      threshold_tokens: 300,
      threshold_source: 'tenant',
      threshold_amount: 1.5,
      threshold_exceeded: true,
    });
    const both = await thresholdEvents(admin);
    expect(both.map((e) => e.data.unit).sort()).toEqual(['amount', 'tokens']);
    expect(both.find((e) => e.data.unit === 'tokens')!.data).toMatchObject({ amount: 400, threshold: 300 });

    // Money off, tokens raised past the period: not exceeded; null for the money overrides the installation default.
    const off = await api.call('PUT', '/v1/costs/threshold', { key: admin, body: { threshold_amount: null, threshold_tokens: 10_000 } });
    expect(off.json.data).toMatchObject({
      threshold_amount: null,
      threshold_amount_source: 'none',
      threshold_tokens: 10_000,
      threshold_exceeded: false,
      amount: 2,
    });
    // Removing the tenant's thresholds brings back both installation defaults.
    const reset = await api.call('DELETE', '/v1/costs/threshold', { key: admin });
    expect(reset.json.data).toMatchObject({
      threshold_tokens: DEFAULT_THRESHOLD,
      threshold_source: 'default',
      threshold_amount: DEFAULT_AMOUNT_THRESHOLD,
      threshold_amount_source: 'default',
    });
    expect((await api.call('PUT', '/v1/costs/threshold', { key: member, body: { threshold_amount: 1 } })).json.code).toBe(10003);
    expect(await thresholdEvents(admin)).toHaveLength(2);
  }, 90_000); // up to 30 s of waiting for the next month

  it('reads ledger entries and totals written before the split and the money as 0', async () => {
    const { tenant, member } = await newTenant();
    const period = '2025-07';
    const db = api.services.mongo.db;
    // As earlier versions wrote them: running totals of tokens, durations and runs only.
    await db.collection<{ _id: string }>('cost_ledger').insertOne({
      _id: `${tenant}:${period}:1`,
      tenant_id: tenant,
      period,
      seq: 1,
      trace_id: `trc_${randomToken(20)}`,
      tokens: 40,
      duration_ms: 4,
      runs: 1,
      at: new Date('2025-07-02T00:00:00Z'),
    } as { _id: string });
    expect((await api.call('GET', `/v1/costs?period=${period}`, { key: member })).json.data).toMatchObject({
      tokens: 40,
      runs: 1,
      input_tokens: 0,
      output_tokens: 0,
      amount: 0,
    });
    const next = await run(tenant, 10, new Date('2025-07-03T00:00:00Z'), undefined, 0.25);
    expect(next.totals).toEqual({ tokens: 50, duration_ms: 5, runs: 2, input_tokens: 8, output_tokens: 2, amount: 0.25 });
  });

  it('refuses invalid thresholds and periods with 10001', async () => {
    const { admin } = await newTenant();
    const bodies = [
      { threshold_tokens: 0 },
      { threshold_tokens: -5 },
      { threshold_tokens: 1.5 },
      { threshold_tokens: '100' },
      {},
      { threshold_tokens: 10, extra: 1 },
      { threshold_amount: 0 },
      { threshold_amount: -0.5 },
      { threshold_amount: '2' },
      { threshold_amount: 2, threshold_tokens: 0 },
    ];
    for (const body of bodies) {
      const res = await api.call('PUT', '/v1/costs/threshold', { key: admin, body });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe(10001);
    }
    for (const period of ['2026-13', '2026-1', 'last-month', '2026-01-05']) {
      const res = await api.call('GET', `/v1/costs?period=${period}`, { key: admin });
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'query.period' } });
    }
    expect((await api.call('GET', '/v1/costs')).json.code).toBe(10002);
  });
});
