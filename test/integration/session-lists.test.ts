import { startTestApi, type TestApi } from '../support/api';

/** The tenant's sessions in one list, and either list narrowed by agent, user, status and creation time. */
let api: TestApi;
beforeAll(async () => {
  // Its own database: the totals below are this file's only.
  api = await startTestApi({});
});
afterAll(async () => {
  await api.close();
});

const call = async (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, body });
const idsOf = async (path: string) => {
  const res = await call('GET', path);
  expect(res.json.code).toBe(0);
  return (res.json.data.items as { session_id: string }[]).map((s) => s.session_id);
};

it("lists every agent's sessions newest first, narrowed by agent, user, status and time", async () => {
  const agentA = (await call('POST', '/v1/combo/agents', { name: 'A' })).json.data.agent_id;
  const agentB = (await call('POST', '/v1/combo/agents', { name: 'B' })).json.data.agent_id;
  const open = async (agentId: string, userId: string) =>
    (await call('POST', `/v1/combo/agents/${agentId}/sessions`, { user_id: userId })).json.data as {
      session_id: string;
      created_at: string;
    };
  const a1 = await open(agentA, 'ana');
  const b1 = await open(agentB, 'ben');
  const a2 = await open(agentA, 'ben');
  await call('POST', `/v1/combo/sessions/${a1.session_id}/archive`);

  expect(await idsOf('/v1/combo/sessions')).toEqual([a2.session_id, b1.session_id, a1.session_id]);
  expect(await idsOf(`/v1/combo/sessions?agent_id=${agentA}`)).toEqual([a2.session_id, a1.session_id]);
  expect(await idsOf('/v1/combo/sessions?user_id=ben')).toEqual([a2.session_id, b1.session_id]);
  expect(await idsOf('/v1/combo/sessions?status=archived')).toEqual([a1.session_id]);
  expect(await idsOf(`/v1/combo/sessions?since=${encodeURIComponent(b1.created_at)}`)).toEqual([a2.session_id, b1.session_id]);
  expect(await idsOf(`/v1/combo/sessions?until=${encodeURIComponent(b1.created_at)}`)).toEqual([a1.session_id]);
  expect(await idsOf('/v1/combo/sessions?agent_id=agt_none')).toEqual([]);
  // The agent's own list takes the same filters.
  expect(await idsOf(`/v1/combo/agents/${agentA}/sessions?user_id=ben`)).toEqual([a2.session_id]);
  expect(await idsOf(`/v1/combo/agents/${agentA}/sessions?status=active`)).toEqual([a2.session_id]);

  for (const bad of ['status=closed', 'since=yesterday', 'agent_id=nope', 'extra=1']) {
    expect((await call('GET', `/v1/combo/sessions?${bad}`)).json.code).toBe(10001);
  }
  const member = (await call('POST', '/v1/api-keys', { name: 'member', role: 'member' })).json.data.api_key as string;
  expect((await api.call('GET', '/v1/combo/sessions', { key: member })).json.data.total).toBe(3);
  expect((await api.call('GET', '/v1/combo/sessions')).json.code).toBe(10002);
});
