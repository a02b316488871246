import { createModelProviderCommands } from '../../commands/model-providers';
import type { ProviderConnection } from '../../common/model-provider';
import { consoleToken, startTestApi, type TestApi } from '../support/api';

/**
 * Model providers through the API on the real stack: admins only, secrets sealed at rest and never
 * shown again, private URLs refused unless the operator lists the host, and agents that name a
 * provider (it must exist, offer the model, and cannot be deleted from under them).
 */
let api: TestApi;
let memberKey: string;
beforeAll(async () => {
  api = await startTestApi({ ALLOW_PRIVATE_URLS: 'false', MODEL_PROVIDER_PRIVATE_HOSTS: 'localhost:11434,10.20.30.40' });
  const res = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'member', role: 'member' } });
  expect(res.json.code).toBe(0);
  memberKey = res.json.data.api_key;
});
afterAll(async () => {
  await api.close();
});

const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, body });
const ok = async (method: string, path: string, body?: unknown) => {
  const res = await call(method, path, body);
  expect({ path, code: res.json.code, message: res.json.message }).toEqual({ path, code: 0, message: 'ok' });
  return res.json.data;
};

const API_KEY = 'sk-live-0123456789abcdefSECRETKEYTEXT-wxyz';
const HEADER_SECRET = 'org-header-secret-value-42';
const ollama = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'openai-compatible',
  base_url: 'http://localhost:11434/v1',
  models: [{ id: 'llama3.2' }, { id: 'qwen2.5', input_price_per_million: 0.1, output_price_per_million: 0.3 }],
  ...extra,
});

describe('the model provider resource', () => {
  it('creates, lists, gets, updates and deletes a provider; the key and header values are never shown again', async () => {
    const created = await ok('POST', '/v1/model-providers', {
      name: 'OpenAI prod',
      kind: 'openai',
      api_key: API_KEY,
      headers: { 'OpenAI-Organization': HEADER_SECRET },
      models: [{ id: 'gpt-4o-mini', input_price_per_million: 0.15, output_price_per_million: 0.6 }, { id: 'gpt-4o' }],
    });
    expect(created).toEqual({
      provider_id: expect.stringMatching(/^mp_[A-Za-z0-9]{20}$/),
      name: 'OpenAI prod',
      kind: 'openai',
      base_url: null,
      api_key_last4: 'wxyz',
      header_names: ['OpenAI-Organization'],
      models: [{ id: 'gpt-4o-mini', input_price_per_million: 0.15, output_price_per_million: 0.6 }, { id: 'gpt-4o' }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.provider_id as string;
    for (const shown of [created, await ok('GET', `/v1/model-providers/${id}`), await ok('GET', '/v1/model-providers')]) {
      expect(JSON.stringify(shown)).not.toContain(API_KEY);
      expect(JSON.stringify(shown)).not.toContain(HEADER_SECRET);
    }
    expect(await ok('GET', `/v1/model-providers/${id}`)).toEqual(created);
    // Another tenant's admin neither finds it nor lists it.
    const otherTenant = await consoleToken({ tenant_id: 'other-tenant', sub: 'someone', roles: ['admin'] });
    expect((await api.call('GET', `/v1/model-providers/${id}`, { key: otherTenant })).json.code).toBe(10004);
    expect((await api.call('GET', '/v1/model-providers', { key: otherTenant })).json.data.items).toEqual([]);

    // At rest: sealed, neither the key nor a header value readable in the stored document.
    const stored = await api.services.mongo.db.collection('model_providers').findOne({ _id: id as never });
    expect(stored).toMatchObject({ tenant_id: 'default', api_key_sealed: expect.stringMatching(/^v1:/) });
    expect(JSON.stringify(stored)).not.toContain(API_KEY);
    expect(JSON.stringify(stored)).not.toContain(HEADER_SECRET);
    expect(JSON.stringify(stored)).not.toContain('SECRETKEYTEXT');
    // The code that calls the provider gets them opened.
    expect(await api.services.modelProviders.connection('default', id)).toEqual({
      providerId: id,
      kind: 'openai',
      apiKey: API_KEY,
      headers: { 'OpenAI-Organization': HEADER_SECRET },
      models: [{ id: 'gpt-4o-mini', inputPricePerMillion: 0.15, outputPricePerMillion: 0.6 }, { id: 'gpt-4o' }],
    });

    // A partial update keeps what it does not name; a new key shows its own last four.
    const renamed = await ok('PUT', `/v1/model-providers/${id}`, { name: 'OpenAI', api_key: 'sk-new-key-9876' });
    expect(renamed).toMatchObject({ name: 'OpenAI', api_key_last4: '9876', header_names: ['OpenAI-Organization'], kind: 'openai' });
    expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect((await api.services.modelProviders.connection('default', id)).apiKey).toBe('sk-new-key-9876');
    // null removes the key; {} removes every header.
    const keyless = await ok('PUT', `/v1/model-providers/${id}`, { api_key: null, headers: {} });
    expect(keyless).toMatchObject({ api_key_last4: null, header_names: [], name: 'OpenAI' });
    const opened = await api.services.modelProviders.connection('default', id);
    expect(opened.apiKey).toBeUndefined();
    expect(opened.headers).toEqual({});

    expect(await ok('DELETE', `/v1/model-providers/${id}`)).toEqual({ deleted: true });
    expect((await call('GET', `/v1/model-providers/${id}`)).json).toMatchObject({ code: 10004 });
    expect((await call('DELETE', `/v1/model-providers/${id}`)).json.code).toBe(10004);
    await expect(api.services.modelProviders.connection('default', id)).rejects.toMatchObject({ code: 10004 });
    expect((await call('GET', '/v1/model-providers/mp_nosuchprovider')).json).toMatchObject({
      code: 10004,
      message: 'model provider mp_nosuchprovider does not exist',
    });
  });

  it('is for admins only (10003)', async () => {
    const id = (await ok('POST', '/v1/model-providers', ollama('admins only'))).provider_id;
    const asMember = (method: string, path: string, body?: unknown) => api.call(method, path, { key: memberKey, body });
    for (const [method, path, body] of [
      ['POST', '/v1/model-providers', ollama('member made')],
      ['GET', '/v1/model-providers', undefined],
      ['GET', `/v1/model-providers/${id}`, undefined],
      ['PUT', `/v1/model-providers/${id}`, { name: 'renamed' }],
      ['DELETE', `/v1/model-providers/${id}`, undefined],
      ['POST', `/v1/model-providers/${id}/check`, {}],
    ] as const) {
      const res = await asMember(method, path, body);
      expect({ method, path, status: res.status, code: res.json.code }).toEqual({ method, path, status: 403, code: 10003 });
    }
    expect((await ok('GET', `/v1/model-providers/${id}`)).name).toBe('admins only');
  });

  it('refuses bad input with 10001 naming the field, and a name the tenant already uses with 10005', async () => {
    const refused = async (body: unknown, field: string, method = 'POST', path = '/v1/model-providers') => {
      const res = await call(method, path, body);
      expect({ body, code: res.json.code, field: res.json.data?.field }).toEqual({ body, code: 10001, field });
      return res.json.message as string;
    };
    await refused(ollama('bad kind', { kind: 'mistral' }), 'body.kind');
    await refused({ name: 'no url', kind: 'openai-compatible', models: [{ id: 'm' }] }, 'body.base_url');
    await refused(ollama('ftp', { base_url: 'ftp://localhost:11434/v1' }), 'body.base_url');
    await refused(ollama('creds', { base_url: 'http://user:pw@localhost:11434/v1' }), 'body.base_url');
    await refused(ollama('no models', { models: [] }), 'body.models');
    await refused(ollama('many models', { models: Array.from({ length: 101 }, (_, i) => ({ id: `m${i}` })) }), 'body.models');
    await refused(ollama('twice', { models: [{ id: 'a' }, { id: 'a' }] }), 'body.models');
    await refused(ollama('negative', { models: [{ id: 'a', input_price_per_million: -1 }] }), 'body.models.0.input_price_per_million');
    await refused(ollama('host header', { headers: { Host: 'x' } }), 'body.headers.Host');
    await refused(
      ollama('many headers', { headers: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`x-h${i}`, 'v'])) }),
      'body.headers',
    );
    await refused(ollama('key with space', { api_key: 'sk with space' }), 'body.api_key');
    await refused(ollama('x'.repeat(101)), 'body.name');
    await refused(ollama('unknown field', { secret: 'x' }), 'body.secret');

    // Private addresses: refused unless the host (and port) is listed in MODEL_PROVIDER_PRIVATE_HOSTS.
    const loopback = await refused(ollama('loopback', { base_url: 'http://127.0.0.1:8000/v1' }), 'body.base_url');
    expect(loopback).toMatch(/private, loopback or reserved/);
    await refused(ollama('other port', { base_url: 'http://localhost:11435/v1' }), 'body.base_url');
    await refused(ollama('private', { base_url: 'http://10.20.30.41/v1' }), 'body.base_url');
    expect((await ok('POST', '/v1/model-providers', ollama('listed host and port'))).base_url).toBe('http://localhost:11434/v1');
    expect((await ok('POST', '/v1/model-providers', ollama('listed host', { base_url: 'http://10.20.30.40:8000/v1' }))).kind).toBe(
      'openai-compatible',
    );
    // A public address needs no listing.
    expect(
      (await ok('POST', '/v1/model-providers', ollama('public', { kind: 'anthropic', base_url: 'https://93.184.216.34/v1' }))).kind,
    ).toBe('anthropic');

    const dup = await call('POST', '/v1/model-providers', ollama('listed host and port'));
    expect(dup.json).toMatchObject({ code: 10005, data: { name: 'listed host and port' } });

    // Updates: the same rules, checked against the provider as it will be.
    const id = (await ok('POST', '/v1/model-providers', ollama('to update'))).provider_id;
    const path = `/v1/model-providers/${id}`;
    await refused({ base_url: 'http://192.168.1.2/v1' }, 'body.base_url', 'PUT', path);
    await refused({ base_url: null }, 'body.base_url', 'PUT', path);
    await refused({}, 'body', 'PUT', path);
    expect((await call('PUT', path, { name: 'public' })).json).toMatchObject({ code: 10005 });
    const openai = await ok('PUT', path, { kind: 'openai', base_url: null });
    expect(openai).toMatchObject({ kind: 'openai', base_url: null });
    await refused({ kind: 'openai-compatible' }, 'body.base_url', 'PUT', path);
    expect((await call('PUT', '/v1/model-providers/mp_nosuchprovider', { name: 'x' })).json.code).toBe(10004);
  });

  it('pages the list, newest first, by page number and by cursor, and narrows it by name', async () => {
    // An API with a database of its own: the counts are this test's only.
    const other = await startTestApi({});
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await other.call('POST', '/v1/model-providers', { key: other.adminKey, body: ollama(`page ${i}`) });
        expect(res.json.code).toBe(0);
        ids.push(res.json.data.provider_id);
      }
      const list = async (query: string) => {
        const res = await other.call('GET', `/v1/model-providers?${query}`, { key: other.adminKey });
        expect(res.json.code).toBe(0);
        return res.json.data as { items: { provider_id: string }[]; total?: number; next_cursor: string | null };
      };
      const first = await list('page_size=2');
      expect(first.total).toBe(5);
      expect(first.items.map((p) => p.provider_id)).toEqual([ids[4], ids[3]]);
      expect((await list('page_size=2&page=3')).items.map((p) => p.provider_id)).toEqual([ids[0]]);
      const seen = first.items.map((p) => p.provider_id);
      let cursor = first.next_cursor;
      while (cursor) {
        const page = await list(`page_size=2&after=${encodeURIComponent(cursor)}`);
        seen.push(...page.items.map((p) => p.provider_id));
        cursor = page.next_cursor;
      }
      expect(seen).toEqual([...ids].reverse());
      expect((await list('name=PAGE 3')).items.map((p) => p.provider_id)).toEqual([ids[3]]);
    } finally {
      await other.close();
    }
  });

  it('is described in the OpenAPI document, the key as write-only', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/model-providers', '/v1/model-providers/{provider_id}', '/v1/model-providers/{provider_id}/check']),
    );
    expect(Object.keys(doc.paths['/v1/model-providers/{provider_id}'])).toEqual(expect.arrayContaining(['get', 'put', 'delete']));
    expect(doc.components.schemas.CreateModelProviderRequest.properties.api_key).toBeDefined();
    expect(Object.keys(doc.components.schemas.ModelProvider.properties)).not.toContain('api_key');
    expect(doc.components.schemas.ModelSettings.properties.provider_id).toBeDefined();
  });
});

describe('agents naming a provider', () => {
  it('must name one that exists (10004) and a model it offers (10001); absent model means its first', async () => {
    const provider = await ok('POST', '/v1/model-providers', ollama('for agents'));
    const missing = await call('POST', '/v1/combo/agents', { name: 'lost', model: { provider_id: 'mp_nosuchprovider' } });
    expect(missing.json).toMatchObject({ code: 10004, message: 'model provider mp_nosuchprovider does not exist' });
    const wrongModel = await call('POST', '/v1/combo/agents', {
      name: 'wrong',
      model: { provider_id: provider.provider_id, model: 'gpt-4o' },
    });
    expect(wrongModel.json).toMatchObject({ code: 10001, data: { field: 'body.model.model' } });
    expect(wrongModel.json.message).toContain('llama3.2');

    const agent = await ok('POST', '/v1/combo/agents', {
      name: 'on ollama',
      model: { provider_id: provider.provider_id, temperature: 0.2 },
    });
    expect(agent.model).toEqual({ provider_id: provider.provider_id, temperature: 0.2 });
    const updated = await ok('PUT', `/v1/combo/agents/${agent.agent_id}`, {
      model: { provider_id: provider.provider_id, model: 'qwen2.5' },
    });
    expect(updated.model).toEqual({ provider_id: provider.provider_id, model: 'qwen2.5' });
    const refusedUpdate = await call('PUT', `/v1/combo/agents/${agent.agent_id}`, {
      model: { provider_id: provider.provider_id, model: 'nope' },
    });
    expect(refusedUpdate.json).toMatchObject({ code: 10001, data: { field: 'body.model.model' } });
    expect((await call('PUT', `/v1/combo/agents/${agent.agent_id}`, { model: { provider_id: 'mp_gone' } })).json.code).toBe(10004);
    // Agents without a provider keep working as before: any model name, the default provider.
    expect((await ok('POST', '/v1/combo/agents', { name: 'default', model: { model: 'anything' } })).model).toEqual({ model: 'anything' });
  });

  it('keeps a provider that agents use from being deleted (10005 naming them), or losing a model they name', async () => {
    const provider = await ok('POST', '/v1/model-providers', ollama('in use'));
    const path = `/v1/model-providers/${provider.provider_id}`;
    const first = await ok('POST', '/v1/combo/agents', { name: 'user one', model: { provider_id: provider.provider_id } });
    const second = await ok('POST', '/v1/combo/agents', {
      name: 'user two',
      model: { provider_id: provider.provider_id, model: 'qwen2.5' },
    });

    const refused = await call('DELETE', path);
    expect(refused.json).toMatchObject({
      code: 10005,
      data: { provider_id: provider.provider_id, agent_count: 2, agent_ids: [first.agent_id, second.agent_id].sort() },
    });
    expect(refused.json.message).toContain(first.agent_id);
    expect(refused.json.message).toContain(second.agent_id);

    // Dropping the model the second agent names is refused too; reordering or adding is not.
    const dropped = await call('PUT', path, { models: [{ id: 'llama3.2' }] });
    expect(dropped.json).toMatchObject({ code: 10005, data: { agent_ids: [second.agent_id], agent_count: 1 } });
    expect((await ok('PUT', path, { models: [{ id: 'qwen2.5' }, { id: 'phi4' }] })).models).toEqual([{ id: 'qwen2.5' }, { id: 'phi4' }]);

    await ok('PUT', `/v1/combo/agents/${first.agent_id}`, { model: {} });
    const stillOne = await call('DELETE', path);
    expect(stillOne.json).toMatchObject({ code: 10005, data: { agent_ids: [second.agent_id], agent_count: 1 } });
    await ok('DELETE', `/v1/combo/agents/${second.agent_id}`);
    expect(await ok('DELETE', path)).toEqual({ deleted: true });
  });
});

describe('checking a provider', () => {
  it('calls the provider once with its opened connection, the named or first model, and answers the latency', async () => {
    const provider = await ok(
      'POST',
      '/v1/model-providers',
      ollama('to check', { api_key: API_KEY, headers: { 'X-Route': HEADER_SECRET } }),
    );
    const calls: { connection: ProviderConnection; model: string }[] = [];
    const commands = createModelProviderCommands({
      modelProviders: api.services.modelProviders,
      agents: api.services.agents,
      config: api.config,
      checkProvider: async (connection, model) => {
        calls.push({ connection, model });
        return { latencyMs: 12.4, model };
      },
    });
    expect(await commands.check('default', provider.provider_id, {})).toEqual({ ok: true, latency_ms: 12, model: 'llama3.2' });
    expect(await commands.check('default', provider.provider_id, { model: 'qwen2.5' })).toMatchObject({ model: 'qwen2.5' });
    expect(calls.map((c) => c.model)).toEqual(['llama3.2', 'qwen2.5']);
    expect(calls[0]!.connection).toMatchObject({
      providerId: provider.provider_id,
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      apiKey: API_KEY,
      headers: { 'X-Route': HEADER_SECRET },
    });
    await expect(commands.check('default', provider.provider_id, { model: 'gpt-4o' })).rejects.toMatchObject({ code: 10001 });
    await expect(commands.check('other-tenant', provider.provider_id, {})).rejects.toMatchObject({ code: 10004 });
    expect(calls).toHaveLength(2);

    // Through the API: what is refused before the provider is called.
    const notOffered = await call('POST', `/v1/model-providers/${provider.provider_id}/check`, { model: 'gpt-4o' });
    expect(notOffered.json).toMatchObject({ code: 10001, data: { field: 'body.model' } });
    expect((await call('POST', '/v1/model-providers/mp_nosuchprovider/check', {})).json.code).toBe(10004);
  });
});
