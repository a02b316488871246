import { randomToken } from '../../common/ids';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startEarlyInRateWindow } from '../support/rate-window';

const limits = { RATE_LIMIT_DEFAULT_PER_MIN: '8', RATE_LIMIT_COMPLETIONS_PER_MIN: '3', RATE_LIMIT_UPLOADS_PER_MIN: '2' };

describe('rate limits', () => {
  let a: TestApi;
  let b: TestApi;
  beforeAll(async () => {
    // Two API processes on one database, each re-reading the shared counts before every request.
    a = await startTestApi(limits, { rateLimitSyncMs: 0 });
    b = await startTestApi({ ...limits, MONGODB_DB: a.config.MONGODB_DB, BOOTSTRAP_API_KEY: a.adminKey }, { rateLimitSyncMs: 0 });
  });
  afterAll(async () => {
    await b.close({ keepDatabase: true });
    await a.close();
  });

  const newKey = async () =>
    (await a.call('POST', '/v1/api-keys', { key: a.adminKey, body: { name: `k-${randomToken(4)}` } })).json.data.api_key as string;

  it('puts the headers on successes and errors, and answers 429 with Retry-After over the ceiling', async () => {
    const key = await newKey();
    await startEarlyInRateWindow();
    const resetFloor = Math.floor(Date.now() / 1000);
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await a.call('GET', i % 2 ? '/v1/combo/agents' : '/v1/unknown', { key });
      expect(res.headers.get('x-ratelimit-limit')).toBe('8');
      seen.push(Number(res.headers.get('x-ratelimit-remaining')));
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(resetFloor);
      expect(reset).toBeLessThanOrEqual(resetFloor + 61);
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
    const over = await a.call('GET', '/v1/combo/agents', { key });
    expect(over.status).toBe(429);
    expect(over.json.code).toBe(10006);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('counts one key across several API processes', async () => {
    const key = await newKey();
    await startEarlyInRateWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await (i % 2 ? b : a).call('GET', '/v1/combo/agents', { key })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    expect(statuses.slice(8)).toEqual([429, 429]);
  });

  it('keeps separate ceilings per family and per key', async () => {
    const key = await newKey();
    await startEarlyInRateWindow();
    const completion = (await a.call('POST', '/v1/combo/agents/agt_x/completions', { key, body: {} })).headers;
    expect(completion.get('x-ratelimit-limit')).toBe('3');
    const upload = (await a.call('POST', '/v1/document', { key })).headers;
    expect(upload.get('x-ratelimit-limit')).toBe('2');
    const other = await newKey();
    for (let i = 0; i < 8; i++) await a.call('GET', '/v1/combo/agents', { key });
    expect((await a.call('GET', '/v1/combo/agents', { key })).status).toBe(429);
    expect((await a.call('GET', '/v1/combo/agents', { key: other })).status).toBe(200);
    expect((await a.call('POST', '/v1/combo/agents/agt_x/completions', { key, body: {} })).headers.get('x-ratelimit-remaining')).toBe('1');
  });

  it('counts calls without credentials against the client address, with headers on the 401', async () => {
    const res = await a.call('GET', '/v1/combo/agents');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBe('8');
  });
});

describe('rate limits with a sync interval (RATE_LIMIT_SYNC_MS)', () => {
  const SYNC_MS = 1_000;
  let a: TestApi;
  let b: TestApi;
  beforeAll(async () => {
    a = await startTestApi(limits, { rateLimitSyncMs: SYNC_MS });
    b = await startTestApi({ ...limits, MONGODB_DB: a.config.MONGODB_DB, BOOTSTRAP_API_KEY: a.adminKey }, { rateLimitSyncMs: SYNC_MS });
  });
  afterAll(async () => {
    await b?.close({ keepDatabase: true });
    await a?.close();
  });

  const newKey = async () => {
    const created = (await a.call('POST', '/v1/api-keys', { key: a.adminKey, body: { name: `k-${randomToken(4)}` } })).json.data;
    return { key: created.api_key as string, keyId: created.key_id as string };
  };
  /** What every process has published for the key's default family in the current window, summed. */
  const published = async (keyId: string) => {
    const docs = await a.services.mongo.db
      .collection<{ count: number }>('rate_limits')
      .find({ bucket: { $regex: `^key:${keyId}\\|default\\|` } })
      .toArray();
    return docs.reduce((sum, d) => sum + d.count, 0);
  };

  it('a process that stops receiving requests publishes its last counts within the interval, and another counts them', async () => {
    const { key, keyId } = await newKey();
    await startEarlyInRateWindow();
    for (let i = 0; i < 5; i++) expect((await b.call('GET', '/v1/combo/agents', { key })).status).toBe(200);
    const lastSentAt = Date.now();
    // B gets nothing more: only its own timer can publish the four it counted after the first.
    const publishedAt = await eventually(async () => ((await published(keyId)) === 5 ? Date.now() : undefined), 10_000);
    expect(publishedAt - lastSentAt).toBeLessThan(SYNC_MS + 2_000);
    // A's first request of the window reads them: three more of the 8, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await a.call('GET', '/v1/combo/agents', { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('a process publishes what it counted when it closes', async () => {
    const { key, keyId } = await newKey();
    await startEarlyInRateWindow();
    // A third process whose timer would not publish before the window ends: only its close can.
    const c = await startTestApi(
      { ...limits, MONGODB_DB: a.config.MONGODB_DB, BOOTSTRAP_API_KEY: a.adminKey },
      { rateLimitSyncMs: 10_000 },
    );
    try {
      for (let i = 0; i < 3; i++) expect((await c.call('GET', '/v1/combo/agents', { key })).status).toBe(200);
    } finally {
      await c.close({ keepDatabase: true });
    }
    expect(await published(keyId)).toBe(3);
  });
});
