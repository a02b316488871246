import { consoleToken, newKeyText, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ MAX_JSON_BODY_BYTES: '2048' });
});
afterAll(() => api.close());

const agentCount = async () => (await api.call('GET', '/v1/combo/agents', { key: api.adminKey })).json.data.total;

describe('envelope and error codes', () => {
  it('answers an unknown path with 10004 in the envelope', async () => {
    const res = await api.call('GET', '/v1/no/such/thing', { key: api.adminKey });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 10004, message: 'no endpoint GET /v1/no/such/thing' });
    expect(res.json.data.trace_id).toMatch(/^trc_/);
  });

  it('answers a wrong method with 10004 and the allowed methods', async () => {
    const res = await api.call('PATCH', '/v1/combo/agents', { key: api.adminKey });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe(10004);
    expect(res.headers.get('allow')).toBe('POST, GET');
  });

  it('refuses malformed JSON, unknown fields, wrong types, oversized bodies and other content types with 10001, writing nothing', async () => {
    const before = await agentCount();
    const cases = [
      { rawBody: '{"name":', headers: { 'content-type': 'application/json' }, message: 'malformed JSON body' },
      { body: { name: 'x', colour: 'red' }, message: 'body.colour: unknown field', field: 'body.colour' },
      { body: { name: 42 }, field: 'body.name' },
      { body: { name: 'x', model: { temperature: 7 } }, field: 'body.model.temperature' },
      { body: {}, field: 'body.name' },
      { body: { name: 'x', description: 'y'.repeat(3000) }, message: 'request body exceeds 2048 bytes' },
      {
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        message: 'Content-Type must be application/json',
      },
    ];
    for (const c of cases) {
      const res = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, ...c });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe(10001);
      if (c.message) expect(res.json.message).toBe(c.message);
      if (c.field) expect(res.json.data.field).toBe(c.field);
    }
    expect(await agentCount()).toBe(before);
  });

  it('answers 10004 for a path that names no resource whatever its shape, and 10001 for bad query parameters', async () => {
    for (const path of [
      '/v1/combo/agents/does-not-exist',
      '/v1/combo/agents/agt_doesnotexist',
      '/v1/document/x',
      '/v1/cron/zzz',
      '/v1/kb/%00',
      '/v1/combo/sessions/%E2%98%83',
    ]) {
      const res = await api.call('GET', path, { key: api.adminKey });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ code: 10004 });
    }
    const badId = await api.call('GET', '/v1/combo/agents/not-an-id', { key: api.adminKey });
    expect(badId.json).toMatchObject({ code: 10004, data: { resource: 'agent', id: 'not-an-id' } });
    const badPage = await api.call('GET', '/v1/combo/agents?page_size=1000', { key: api.adminKey });
    expect(badPage.json).toMatchObject({ code: 10001, data: { field: 'query.page_size' } });
    const unknownQuery = await api.call('GET', '/v1/combo/agents?sort=name', { key: api.adminKey });
    expect(unknownQuery.json).toMatchObject({ code: 10001, data: { field: 'query.sort' } });
  });
});

describe('authentication', () => {
  it('answers missing, malformed, forged, unknown and revoked credentials with 10002/401', async () => {
    const created = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'to revoke' } });
    const revoke = await api.call('DELETE', `/v1/api-keys/${created.json.data.key_id}`, { key: api.adminKey });
    expect(revoke.json.data.revoked_at).not.toBeNull();
    const forged = api.adminKey.slice(0, -4) + 'AAAA';
    const attempts: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic abc' },
      { authorization: `Bearer ${forged}` },
      { authorization: `Bearer ${newKeyText()}` },
      { authorization: `Bearer ${created.json.data.api_key}` },
      { authorization: 'Bearer not.a.jwt' },
    ];
    for (const headers of attempts) {
      const res = await api.call('GET', '/v1/combo/agents', { headers });
      expect(res.status).toBe(401);
      expect(res.json.code).toBe(10002);
    }
  });

  it('accepts console JWTs and refuses expired or wrongly signed ones', async () => {
    const token = await consoleToken({ tenant_id: 'default', sub: 'user-1' });
    expect((await api.call('GET', '/v1/combo/agents', { key: token })).status).toBe(200);
    const expired = await consoleToken({ tenant_id: 'default', sub: 'user-1' }, '-1m');
    const res = await api.call('GET', '/v1/combo/agents', { key: expired });
    expect(res.json).toMatchObject({ code: 10002, message: 'token expired' });
    const [h, p] = token.split('.');
    const tampered = `${h}.${p}.${'A'.repeat(43)}`;
    expect((await api.call('GET', '/v1/combo/agents', { key: tampered })).json.code).toBe(10002);
  });

  it('answers 10003 when a member calls an admin endpoint', async () => {
    const member = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'member', role: 'member' } });
    const memberKey = member.json.data.api_key as string;
    expect((await api.call('GET', '/v1/combo/agents', { key: memberKey })).status).toBe(200);
    const res = await api.call('POST', '/v1/api-keys', { key: memberKey, body: { name: 'escalate', role: 'admin' } });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe(10003);
    const memberJwt = await consoleToken({ tenant_id: 'default', sub: 'u2', roles: ['member'] });
    expect((await api.call('GET', '/v1/events', { key: memberJwt })).json.code).toBe(10003);
  });
});

describe('API keys', () => {
  it('shows the secret once, lists keys without secrets, and the new key works', async () => {
    const created = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'ci' } });
    expect(created.json.data.api_key).toMatch(/^combo_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/);
    expect((await api.call('GET', '/v1/combo/agents', { key: created.json.data.api_key })).status).toBe(200);
    const list = await api.call('GET', '/v1/api-keys?page_size=100', { key: api.adminKey });
    expect(list.text).not.toContain(created.json.data.api_key);
    expect(list.text).not.toContain('secret_hash');
    expect(list.json.data.items.map((k: { key_id: string }) => k.key_id)).toContain(created.json.data.key_id);
    const stored = await api.services.mongo.db.collection('api_keys').findOne({ _id: created.json.data.key_id });
    expect(JSON.stringify(stored)).not.toContain(created.json.data.api_key.split('_')[2]);
  });

  it('refuses a key past its expiry, and an expiry in the past at creation', async () => {
    const past = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'old', expires_at: '2020-01-01T00:00:00Z' } });
    expect(past.json).toMatchObject({ code: 10001, data: { field: 'body.expires_at' } });
    const created = await api.call('POST', '/v1/api-keys', {
      key: api.adminKey,
      body: { name: 'expiring', expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    await api.services.mongo.db
      .collection('api_keys')
      .updateOne({ _id: created.json.data.key_id }, { $set: { expires_at: new Date(Date.now() - 1000) } });
    expect((await api.call('GET', '/v1/combo/agents', { key: created.json.data.api_key })).json.code).toBe(10002);
  });
});
