import { startTestApi, type TestApi } from '../support/api';

/** Short enough to poll through in a test; the bound itself is what is asserted. */
const AUTH_CACHE_TTL_MS = 1_500;

describe('the authentication cache bound (AUTH_CACHE_TTL_MS)', () => {
  let a: TestApi;
  let b: TestApi;
  beforeAll(async () => {
    // Two API processes on one database: a revocation made through one reaches the other through the store only.
    // The test polls as fast as B answers: no rate limit may answer before the revocation does.
    const settings = { AUTH_CACHE_TTL_MS: String(AUTH_CACHE_TTL_MS), RATE_LIMIT_DEFAULT_PER_MIN: '1000000' };
    a = await startTestApi(settings);
    b = await startTestApi({
      ...settings,
      MONGODB_DB: a.config.MONGODB_DB,
      BOOTSTRAP_API_KEY: a.adminKey,
    });
  });
  afterAll(async () => {
    await b.close({ keepDatabase: true });
    await a.close();
  });

  it('a key revoked through one API process is refused by another within AUTH_CACHE_TTL_MS of that process verifying it', async () => {
    const created = await a.call('POST', '/v1/api-keys', { key: a.adminKey, body: { name: 'revoked elsewhere' } });
    const key = created.json.data.api_key as string;
    // B verifies the key and trusts it from some moment before this answer; it may trust it at most the TTL from then.
    const verified = await b.call('GET', '/v1/combo/agents', { key });
    expect(verified.status).toBe(200);
    const trustedUntil = Date.now() + AUTH_CACHE_TTL_MS;

    const revoke = await a.call('DELETE', `/v1/api-keys/${created.json.data.key_id}`, { key: a.adminKey });
    expect(revoke.status).toBe(200);
    // The process that revoked forgets the key at once.
    expect((await a.call('GET', '/v1/combo/agents', { key })).status).toBe(401);

    // Poll B until it refuses; every request sent after the bound must be refused.
    const acceptedSentAt: number[] = [];
    let refused: { status: number; code: unknown } | undefined;
    while (!refused) {
      const sentAt = Date.now();
      const res = await b.call('GET', '/v1/combo/agents', { key });
      if (res.status === 200) acceptedSentAt.push(sentAt);
      else refused = { status: res.status, code: res.json.code };
      if (!refused && sentAt > trustedUntil) break; // accepted after the bound: the assertion below fails
    }
    expect(refused).toEqual({ status: 401, code: 10002 });
    expect(acceptedSentAt.every((t) => t <= trustedUntil)).toBe(true);
  });
});
