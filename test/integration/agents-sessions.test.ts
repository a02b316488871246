import { consoleToken, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
let otherTenant: string;
beforeAll(async () => {
  api = await startTestApi();
  otherTenant = await consoleToken({ tenant_id: 'other-tenant', sub: 'eve', roles: ['admin'] });
});
afterAll(() => api.close());

const createAgent = async (body: Record<string, unknown> = { name: 'helper' }) => {
  const res = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body });
  expect(res.json.code).toBe(0);
  return res.json.data;
};
const eventsOf = async (event: string) =>
  (await api.call('GET', `/v1/events?event=${event}&page_size=100`, { key: api.adminKey })).json.data.items;

describe('agents', () => {
  it('creates, gets, updates (keeping absent fields), lists and deletes', async () => {
    const created = await createAgent({
      name: 'reviewer',
      instructions: 'Review code.',
      model: { model: 'gpt-4o-mini', temperature: 0.2 },
      tools: ['search_knowledge'],
      default_route: '@chat@llm@default@',
      metadata: { team: 'core' },
    });
    expect(created.agent_id).toMatch(/^agt_/);
    const got = await api.call('GET', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey });
    expect(got.json.data).toEqual(created);

    const updated = await api.call('PUT', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey, body: { name: 'senior reviewer' } });
    expect(updated.json.data).toMatchObject({ name: 'senior reviewer', instructions: 'Review code.', tools: ['search_knowledge'] });
    expect(Date.parse(updated.json.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));

    const emptyUpdate = await api.call('PUT', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey, body: {} });
    expect(emptyUpdate.json.code).toBe(10001);
    const badRoute = await api.call('PUT', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey, body: { default_route: 'chat' } });
    expect(badRoute.json).toMatchObject({ code: 10001, data: { field: 'body.default_route' } });
    const unknownScenario = await api.call('PUT', `/v1/combo/agents/${created.agent_id}`, {
      key: api.adminKey,
      body: { default_route: '@nope@llm@default@' },
    });
    expect(unknownScenario.json).toMatchObject({ code: 10001, data: { field: 'body.default_route', part: 'scenario' } });
    const unknownTool = await api.call('PUT', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey, body: { tools: ['rm_rf'] } });
    expect(unknownTool.json).toMatchObject({ code: 10001, data: { field: 'body.tools.0' } });
    const unknownKb = await api.call('PUT', `/v1/combo/agents/${created.agent_id}`, {
      key: api.adminKey,
      body: { kb_ids: ['kb_missing'] },
    });
    expect(unknownKb.json).toMatchObject({ code: 10004, data: { id: 'kb_missing' } });
    const unknownSkill = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'x', skills: ['skl_missing'] } });
    expect(unknownSkill.json).toMatchObject({ code: 10004, data: { id: 'skl_missing' } });

    const deleted = await api.call('DELETE', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey });
    expect(deleted.json).toEqual({ code: 0, data: { deleted: true }, message: 'ok' });
    expect((await api.call('GET', `/v1/combo/agents/${created.agent_id}`, { key: api.adminKey })).json.code).toBe(10004);
  });

  it('paginates newest first with a total', async () => {
    const names = ['p1', 'p2', 'p3'];
    for (const name of names) await createAgent({ name });
    const first = await api.call('GET', '/v1/combo/agents?page=1&page_size=2', { key: api.adminKey });
    expect(first.json.data.items).toHaveLength(2);
    expect(first.json.data).toMatchObject({ page: 1, page_size: 2 });
    const total = first.json.data.total as number;
    expect(total).toBeGreaterThanOrEqual(3);
    const pages = Math.ceil(total / 2);
    const last = await api.call('GET', `/v1/combo/agents?page=${pages}&page_size=2`, { key: api.adminKey });
    expect(last.json.data.items.length).toBe(total - (pages - 1) * 2);
    expect(first.json.data.items[0].name).toBe('p3');
  });

  it("never shows another tenant's agent: 10004, not its data", async () => {
    const mine = await createAgent({ name: 'private' });
    for (const [method, path] of [
      ['GET', `/v1/combo/agents/${mine.agent_id}`],
      ['DELETE', `/v1/combo/agents/${mine.agent_id}`],
      ['POST', `/v1/combo/agents/${mine.agent_id}/sessions`],
    ] as const) {
      const res = await api.call(method, path, { key: otherTenant, body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(404);
      expect(res.json.code).toBe(10004);
      expect(res.text).not.toContain('private');
    }
    const put = await api.call('PUT', `/v1/combo/agents/${mine.agent_id}`, { key: otherTenant, body: { name: 'stolen' } });
    expect(put.json.code).toBe(10004);
    const list = await api.call('GET', '/v1/combo/agents', { key: otherTenant });
    expect(list.json.data.items.map((a: { agent_id: string }) => a.agent_id)).not.toContain(mine.agent_id);
    expect((await api.call('GET', `/v1/combo/agents/${mine.agent_id}`, { key: api.adminKey })).json.data.name).toBe('private');
  });
});

describe('sessions', () => {
  it('creates a session, records session.created once, and lists it on its agent', async () => {
    const agent = await createAgent();
    const res = await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, {
      key: api.adminKey,
      body: { name: 'triage', user_id: 'customer-7', metadata: { channel: 'web' } },
    });
    expect(res.json.data).toMatchObject({
      agent_id: agent.agent_id,
      tenant_id: 'default',
      user_id: 'customer-7',
      status: 'active',
      archived_at: null,
    });
    const session = res.json.data;

    const created = (await eventsOf('session.created')).filter(
      (e: { data: { session_id: string } }) => e.data.session_id === session.session_id,
    );
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      event: 'session.created',
      tenant_id: 'default',
      data: { session_id: session.session_id, tenant_id: 'default', user_id: 'customer-7' },
    });
    expect(created[0].event_id).toMatch(/^evt_/);
    expect(new Date(created[0].timestamp).toISOString()).toBe(created[0].timestamp);
    const raw = await api.services.mongo.db.collection('sessions').findOne({ _id: session.session_id });
    expect(raw?.outbox).toEqual([]);

    const list = await api.call('GET', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey });
    expect(list.json.data).toMatchObject({ total: 1, items: [{ session_id: session.session_id }] });
  });

  it('defaults user_id to the caller', async () => {
    const agent = await createAgent();
    const jwt = await consoleToken({ tenant_id: 'default', sub: 'alice' });
    const res = await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: jwt, body: {} });
    expect(res.json.data.user_id).toBe('alice');
  });

  it('records messages without advancing the agent, then archives once and refuses further messages with 10005', async () => {
    const agent = await createAgent();
    const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    const path = `/v1/combo/sessions/${session.session_id}`;

    const m1 = await api.call('POST', `${path}/messages`, { key: api.adminKey, body: { content: 'first' } });
    expect(m1.json.data).toMatchObject({ role: 'user', content: 'first', session_id: session.session_id });
    await api.call('POST', `${path}/messages`, { key: api.adminKey, body: { role: 'assistant', content: 'second' } });
    const messages = await api.call('GET', `${path}/messages`, { key: api.adminKey });
    expect(messages.json.data.items.map((m: { content: string }) => m.content)).toEqual(['first', 'second']);
    const badRole = await api.call('POST', `${path}/messages`, { key: api.adminKey, body: { role: 'robot', content: 'x' } });
    expect(badRole.json).toMatchObject({ code: 10001, data: { field: 'body.role' } });

    const archived = await api.call('POST', `${path}/archive`, { key: api.adminKey });
    expect(archived.json.data).toMatchObject({ status: 'archived' });
    expect(archived.json.data.archived_at).not.toBeNull();
    const again = await api.call('POST', `${path}/archive`, { key: api.adminKey });
    expect(again.json.data.archived_at).toBe(archived.json.data.archived_at);
    const archivedEvents = (await eventsOf('session.archived')).filter(
      (e: { data: { session_id: string } }) => e.data.session_id === session.session_id,
    );
    expect(archivedEvents).toHaveLength(1);
    expect(archivedEvents[0].data).toEqual({ session_id: session.session_id });

    const refused = await api.call('POST', `${path}/messages`, { key: api.adminKey, body: { content: 'too late' } });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 10005, data: { session_id: session.session_id, status: 'archived' } });
    expect((await api.call('GET', `${path}/messages`, { key: api.adminKey })).json.data.total).toBe(2);
  });

  it('deletes a session with its messages, and an agent with its sessions', async () => {
    const agent = await createAgent();
    const s1 = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    const s2 = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    await api.call('POST', `/v1/combo/sessions/${s1.session_id}/messages`, { key: api.adminKey, body: { content: 'hi' } });
    await api.call('POST', `/v1/combo/sessions/${s2.session_id}/messages`, { key: api.adminKey, body: { content: 'hi' } });

    expect((await api.call('DELETE', `/v1/combo/sessions/${s1.session_id}`, { key: api.adminKey })).json.data).toEqual({ deleted: true });
    expect((await api.call('GET', `/v1/combo/sessions/${s1.session_id}`, { key: api.adminKey })).json.code).toBe(10004);
    const db = api.services.mongo.db;
    expect(await db.collection('messages').countDocuments({ session_id: s1.session_id })).toBe(0);

    await api.call('DELETE', `/v1/combo/agents/${agent.agent_id}`, { key: api.adminKey });
    expect((await api.call('GET', `/v1/combo/sessions/${s2.session_id}`, { key: api.adminKey })).json.code).toBe(10004);
    expect(await db.collection('messages').countDocuments({ session_id: s2.session_id })).toBe(0);
    // The events of deleted sessions stay in the log.
    const created = await eventsOf('session.created');
    expect(created.map((e: { data: { session_id: string } }) => e.data.session_id)).toEqual(
      expect.arrayContaining([s1.session_id, s2.session_id]),
    );
  });

  it("answers 10004 for another tenant's session and for a session on an unknown agent", async () => {
    const agent = await createAgent();
    const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/archive'],
      ['GET', '/messages'],
    ] as const) {
      const res = await api.call(method, `/v1/combo/sessions/${session.session_id}${suffix}`, { key: otherTenant });
      expect(res.json.code).toBe(10004);
    }
    const posted = await api.call('POST', `/v1/combo/sessions/${session.session_id}/messages`, {
      key: otherTenant,
      body: { content: 'x' },
    });
    expect(posted.json.code).toBe(10004);
    const orphan = await api.call('POST', '/v1/combo/agents/agt_doesnotexist00000000/sessions', { key: api.adminKey, body: {} });
    expect(orphan.json.code).toBe(10004);
    expect((await api.call('GET', `/v1/combo/sessions/${session.session_id}`, { key: api.adminKey })).json.data.status).toBe('active');
  });
});
