import { startTestApi, type TestApi } from '../support/api';

// test/support/api.ts checks every response against the OpenAPI document; these are the JSON
// operations no other test reaches with a success, so their documented shapes are checked too.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(() => api.close());

describe('responses of otherwise untested operations match the OpenAPI document', () => {
  it('lists and updates webhook subscriptions', async () => {
    const key = api.adminKey;
    const created = await api.call('POST', '/v1/webhook/subscriptions', {
      key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['session.created'] },
    });
    expect(created.status).toBe(200);
    const id = created.json.data.subscription_id;
    const updated = await api.call('PUT', `/v1/webhook/subscriptions/${id}`, { key, body: { enabled: false, description: 'paused' } });
    expect(updated.json.data).toMatchObject({ subscription_id: id, enabled: false, description: 'paused' });
    const listed = await api.call('GET', '/v1/webhook/subscriptions', { key });
    expect(listed.json.data.items.map((s: { subscription_id: string }) => s.subscription_id)).toEqual([id]);
    const dead = await api.call('GET', '/v1/webhook/dead-letters', { key });
    expect(dead.json.data).toMatchObject({ items: [], total: 0 });
  });

  it('lists the embedding models', async () => {
    const res = await api.call('GET', '/v1/kb/embedding-models', { key: api.adminKey });
    expect(res.status).toBe(200);
    expect(res.json.data.items.map((m: { model: string }) => m.model)).toContain(res.json.data.default);
  });
});
