import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import { consoleToken as identityProviderToken, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ CONSOLE_TOKEN_TTL_S: '600' });
});
afterAll(() => api.close());

const exchange = (key: string) => api.call('POST', '/v1/auth/console-token', { key, body: {} });
const newKey = async (by: string, body: Record<string, unknown> = {}) => {
  const res = await api.call('POST', '/v1/api-keys', { key: by, body: { name: `k-${Date.now()}`, ...body } });
  expect(res.json.code).toBe(0);
  return res.json.data as { key_id: string; api_key: string; owner_id: string; role: string };
};
const listKeyIds = async (key: string, query = '') => {
  const res = await api.call('GET', `/v1/api-keys?page_size=100${query}`, { key });
  expect(res.json.code).toBe(0);
  return (res.json.data.items as Array<{ key_id: string }>).map((k) => k.key_id);
};

describe('console tokens', () => {
  it('exchanges an API key for a short-lived JWT naming tenant, user, roles and key, that works as a credential', async () => {
    const res = await exchange(api.adminKey);
    expect(res.status).toBe(200);
    const token = res.json.data;
    const bootstrapId = `key_${api.adminKey.split('_')[1]}`;
    expect(token).toMatchObject({ token_type: 'Bearer', tenant_id: 'default', roles: ['admin', 'member'], key_id: bootstrapId });
    // The bootstrap key predates personal keys' owners: it owns itself.
    expect(token.user_id).toBe(bootstrapId);
    expect(token.expires_in).toBeGreaterThan(590);
    expect(token.expires_in).toBeLessThanOrEqual(600);
    const claims = decodeJwt(token.token);
    expect(claims).toMatchObject({
      iss: 'combo-console',
      aud: 'combo-console',
      sub: bootstrapId,
      tenant_id: 'default',
      key_id: bootstrapId,
    });
    expect(claims.exp).toBe(Math.floor(Date.parse(token.expires_at) / 1000));
    expect((await api.call('GET', '/v1/events', { key: token.token })).json.code).toBe(0);
  });

  it('renews with the token itself, and refuses to exchange an identity provider token (10003)', async () => {
    const first = (await exchange(api.adminKey)).json.data;
    const renewed = await exchange(first.token);
    expect(renewed.json.data).toMatchObject({ key_id: first.key_id, user_id: first.user_id, roles: first.roles });
    expect(renewed.json.data.token).not.toBe(first.token);
    const idp = await identityProviderToken({ tenant_id: 'default', sub: 'someone', roles: ['admin'] });
    expect((await api.call('GET', '/v1/events', { key: idp })).json.code).toBe(0);
    const refused = await exchange(idp);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe(10003);
  });

  it('stops working when its key is revoked, renewed tokens included', async () => {
    const key = await newKey(api.adminKey, { role: 'member' });
    const token = (await exchange(key.api_key)).json.data.token;
    const renewed = (await exchange(token)).json.data.token;
    expect((await api.call('GET', '/v1/combo/agents', { key: renewed })).status).toBe(200);
    expect((await api.call('DELETE', `/v1/api-keys/${key.key_id}`, { key: api.adminKey })).json.code).toBe(0);
    for (const t of [token, renewed]) {
      const res = await api.call('GET', '/v1/combo/agents', { key: t });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: 10002, message: expect.stringContaining('revoked') });
      expect((await exchange(t)).json.code).toBe(10002);
    }
  });

  it('never outlives the key it came from, and carries only the key role', async () => {
    const expiresAt = new Date(Date.now() + 120_000);
    const key = await newKey(api.adminKey, { role: 'member', expires_at: expiresAt.toISOString() });
    const token = (await exchange(key.api_key)).json.data;
    expect(Date.parse(token.expires_at)).toBe(Math.floor(expiresAt.getTime() / 1000) * 1000);
    expect(token.roles).toEqual(['member']);
    expect((await api.call('GET', '/v1/events', { key: token.token })).json.code).toBe(10003);
  });

  it('refuses forged, tampered and expired console tokens (10002)', async () => {
    const good = (await exchange(api.adminKey)).json.data.token as string;
    const claims = decodeJwt(good);
    const forge = (secret: Uint8Array, exp: number) =>
      new SignJWT({ tenant_id: 'default', roles: ['admin'], key_id: claims.key_id })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('combo-console')
        .setAudience('combo-console')
        .setSubject(String(claims.sub))
        .setIssuedAt()
        .setExpirationTime(exp)
        .sign(secret);
    const stored = await api.services.mongo.db.collection('service_keys').findOne({ _id: 'console-token-signing' as never });
    expect(stored).not.toBeNull();
    // Kept encrypted: the stored form is the sealed box, not the key.
    expect(String(stored!.sealed)).toMatch(/^v1:/);
    const signingKey = Buffer.from(new TextEncoder().encode('x'.repeat(32)));
    const now = Math.floor(Date.now() / 1000);
    const [h, p] = good.split('.');
    const attempts = [
      await forge(signingKey, now + 300),
      // The identity provider's secret does not sign console tokens.
      await forge(new TextEncoder().encode('test-jwt-secret-that-is-at-least-32-characters'), now + 300),
      `${h}.${p}.${'A'.repeat(43)}`,
    ];
    for (const token of attempts) {
      const res = await api.call('GET', '/v1/combo/agents', { key: token });
      expect(res.json).toMatchObject({ code: 10002, message: 'invalid token' });
    }
  });

  it('is verified by every API process of the installation (one managed key), or signed with CONSOLE_TOKEN_SIGNING_KEY', async () => {
    const token = (await exchange(api.adminKey)).json.data.token as string;
    const sibling = await startTestApi({
      BOOTSTRAP_API_KEY: api.adminKey,
      MONGODB_DB: api.config.MONGODB_DB,
      ELASTICSEARCH_INDEX_PREFIX: api.config.ELASTICSEARCH_INDEX_PREFIX,
    });
    try {
      expect((await sibling.call('GET', '/v1/combo/agents', { key: token })).status).toBe(200);
    } finally {
      await sibling.close({ keepDatabase: true });
    }
    const given = Buffer.alloc(32, 9);
    const own = await startTestApi({ CONSOLE_TOKEN_SIGNING_KEY: given.toString('base64') });
    try {
      const issued = (await own.call('POST', '/v1/auth/console-token', { key: own.adminKey, body: {} })).json.data.token as string;
      await expect(jwtVerify(issued, given, { issuer: 'combo-console', audience: 'combo-console' })).resolves.toBeDefined();
      expect(await own.services.mongo.db.collection('service_keys').countDocuments()).toBe(0);
      // Another installation's token is refused.
      expect((await own.call('GET', '/v1/combo/agents', { key: token })).json.code).toBe(10002);
    } finally {
      await own.close();
    }
  });

  it('counts rate limits per user: two keys of one owner share the console bucket', async () => {
    const owner = `user-${Date.now()}`;
    const first = await newKey(api.adminKey, { owner_id: owner, role: 'member' });
    const second = await newKey(api.adminKey, { owner_id: owner, role: 'member' });
    const tokenA = (await exchange(first.api_key)).json.data.token;
    const tokenB = (await exchange(second.api_key)).json.data.token;
    const remaining = async (key: string) =>
      (await api.call('GET', '/v1/combo/agents', { key })).headers.get('x-ratelimit-remaining') as string;
    const a1 = Number(await remaining(tokenA));
    const b1 = Number(await remaining(tokenB));
    // Same window (fixed minutes): the second call counts in the same bucket; across a window's end it starts again.
    expect([a1 - 1, 299]).toContain(b1);
  });
});

describe('personal API keys', () => {
  it('belong to their creator: a member creates, lists and revokes its own, with at most its own role', async () => {
    const member = await newKey(api.adminKey, { role: 'member', owner_id: 'alice' });
    expect(member.owner_id).toBe('alice');
    const own = await newKey(member.api_key);
    expect(own).toMatchObject({ owner_id: 'alice', role: 'member' });
    // A console token acts for the same person.
    const token = (await exchange(member.api_key)).json.data.token;
    const viaConsole = await newKey(token);
    expect(viaConsole.owner_id).toBe('alice');

    const escalate = await api.call('POST', '/v1/api-keys', { key: member.api_key, body: { name: 'x', role: 'admin' } });
    expect(escalate.json.code).toBe(10003);
    const forOther = await api.call('POST', '/v1/api-keys', { key: member.api_key, body: { name: 'x', owner_id: 'bob' } });
    expect(forOther.json.code).toBe(10003);

    const bob = await newKey(api.adminKey, { role: 'member', owner_id: 'bob' });
    const alicesView = await listKeyIds(member.api_key);
    expect(alicesView.sort()).toEqual([member.key_id, own.key_id, viaConsole.key_id].sort());
    expect(await listKeyIds(member.api_key, '&owner_id=bob')).toEqual([]);

    const othersKey = await api.call('DELETE', `/v1/api-keys/${bob.key_id}`, { key: member.api_key });
    expect(othersKey.json.code).toBe(10004);
    expect((await api.call('GET', '/v1/combo/agents', { key: bob.api_key })).status).toBe(200);
    const revoked = await api.call('DELETE', `/v1/api-keys/${own.key_id}`, { key: token });
    expect(revoked.json).toMatchObject({ code: 0, data: { key_id: own.key_id, owner_id: 'alice' } });
    expect((await api.call('GET', '/v1/combo/agents', { key: own.api_key })).status).toBe(401);
  });

  it('an admin sees and revokes every key of the tenant, filters by owner, and creates keys for others', async () => {
    const carol = await newKey(api.adminKey, { owner_id: 'carol', role: 'admin' });
    expect(carol.owner_id).toBe('carol');
    const all = await listKeyIds(api.adminKey);
    expect(all).toEqual(expect.arrayContaining([carol.key_id, `key_${api.adminKey.split('_')[1]}`]));
    expect(await listKeyIds(api.adminKey, '&owner_id=carol')).toEqual([carol.key_id]);
    const items = (await api.call('GET', '/v1/api-keys?page_size=100', { key: api.adminKey })).json.data.items;
    expect(items.every((k: { owner_id?: string }) => typeof k.owner_id === 'string')).toBe(true);
    // Carol, an admin, revokes someone else's key.
    const dave = await newKey(api.adminKey, { owner_id: 'dave' });
    expect((await api.call('DELETE', `/v1/api-keys/${dave.key_id}`, { key: carol.api_key })).json.code).toBe(0);
    // Another tenant's admin cannot.
    const otherTenant = await identityProviderToken({ tenant_id: 'other', sub: 'eve', roles: ['admin'] });
    expect((await api.call('DELETE', `/v1/api-keys/${carol.key_id}`, { key: otherTenant })).json.code).toBe(10004);
    expect(await listKeyIds(otherTenant)).toEqual([]);
  });

  it('keys made before keys were personal own themselves', async () => {
    await api.services.mongo.db.collection('api_keys').insertOne({
      _id: 'key_legacy01' as never,
      tenant_id: 'default',
      name: 'legacy',
      role: 'member',
      secret_hash: 'x'.repeat(64),
      created_at: new Date(),
      expires_at: null,
      revoked_at: null,
    });
    const items = (await api.call('GET', '/v1/api-keys?owner_id=key_legacy01', { key: api.adminKey })).json.data.items;
    expect(items).toEqual([expect.objectContaining({ key_id: 'key_legacy01', owner_id: 'key_legacy01' })]);
  });
});
