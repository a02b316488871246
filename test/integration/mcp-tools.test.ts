import { completionWorkflowId } from '../../common/workflow-ids';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startMcpTestServer, type McpTestServer } from '../support/mcp-test-server';
import { chatAnswer, chatRequests, chatToolCall, scriptedReplies } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const TOKEN = 'Bearer mcp-s3cret-token-4711';

/** Every payload's text in a workflow history (inputs, results, summaries), decoded, joined. */
function payloadTexts(value: unknown, out: string[] = []): string[] {
  if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (Array.isArray(value)) value.forEach((v) => payloadTexts(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => payloadTexts(v, out));
  return out;
}

/**
 * An agent's MCP servers as tools, on the real stack: a server started with the official SDK
 * (echo, a tool that hangs, one that errors, one the agent does not allow), the model scripted to
 * call them, the API refusing private URLs except the one host the installation allows.
 */
describe('MCP servers as agent tools', () => {
  let api: TestApi;
  let worker: Worker;
  let mcp: McpTestServer;
  const model = new ScriptedUpstream();
  const scriptModel = scriptedReplies(model);
  let agentId: string;

  const call = (method: string, path: string, body?: unknown) =>
    api.call(method, path, { key: api.adminKey, ...(body !== undefined ? { body } : {}) });
  const newSession = async (agent = agentId) =>
    (await call('POST', `/v1/combo/agents/${agent}/sessions`, {})).json.data.session_id as string;
  const complete = (sessionId: string, question: string, agent = agentId) =>
    call('POST', `/v1/combo/agents/${agent}/completions`, { session_id: sessionId, question });
  const runEvents = async (traceId: string) =>
    (await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, { headers: { authorization: `Bearer ${api.adminKey}` } })).events;
  const loggedEvents = (name: string, sessionId: string) =>
    api.services.mongo.db.collection('events').find({ event: name, 'data.session_id': sessionId }).toArray();
  const server = (overrides: Record<string, unknown> = {}) => ({
    name: 'stock',
    url: mcp.url,
    headers: { Authorization: TOKEN },
    allowed_tools: ['echo', 'hang', 'fail'],
    timeout_ms: 800,
    ...overrides,
  });

  beforeAll(async () => {
    mcp = await startMcpTestServer({ authorization: TOKEN });
    const modelUrl = await model.start();
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      COMPLETION_REPLY_WAIT_MS: '30000',
      // Private addresses refused, but for the test's MCP server (the worker's guard too).
      ALLOW_PRIVATE_URLS: 'false',
      MCP_PRIVATE_HOSTS: `127.0.0.1:${mcp.port}`,
    });
    worker = await startTestWorker(api, { config: { ALLOW_PRIVATE_URLS: false } });
    const created = await call('POST', '/v1/combo/agents', { name: 'Stock keeper', mcp_servers: [server()] });
    expect(created.status).toBe(200);
    agentId = created.json.data.agent_id;
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
    await mcp?.close();
  });

  it('stores the server with its headers sealed: shown by name only, kept when an update leaves them out', async () => {
    const got = (await call('GET', `/v1/combo/agents/${agentId}`)).json.data;
    expect(got.mcp_servers).toEqual([
      { name: 'stock', url: mcp.url, header_names: ['Authorization'], allowed_tools: ['echo', 'hang', 'fail'], timeout_ms: 800 },
    ]);
    const stored = await api.services.mongo.db.collection('agents').findOne({ _id: agentId } as never);
    expect(JSON.stringify(stored)).not.toContain('s3cret');

    const other = (await call('POST', '/v1/combo/agents', { name: 'other', mcp_servers: [server()] })).json.data;
    const updated = await call('PUT', `/v1/combo/agents/${other.agent_id}`, {
      mcp_servers: [{ name: 'stock', url: mcp.url, allowed_tools: ['echo'] }],
    });
    expect(updated.json.data.mcp_servers[0]).toMatchObject({
      header_names: ['Authorization'],
      allowed_tools: ['echo'],
      timeout_ms: 10_000,
    });
    const connection = await api.services.agents.mcpServerConnection('default', other.agent_id, 'stock');
    expect(connection?.headers).toEqual({ Authorization: TOKEN });
  });

  it('refuses at save a private URL the installation does not allow, a server named as a skill, an approval of an unknown tool', async () => {
    for (const url of ['http://10.1.2.3/mcp', `http://127.0.0.1:${mcp.port + 1}/mcp`, 'http://localhost/mcp']) {
      const refused = await call('POST', '/v1/combo/agents', { name: 'x', mcp_servers: [server({ url })] });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: 10001, message: expect.stringContaining('body.mcp_servers.0.url') });
    }
    const skill = await call('POST', '/v1/skills/install', {
      manifest: { name: 'stock', version: '1.0.0', tools: [] },
    });
    expect(skill.json.code).toBe(0);
    const clash = await call('POST', '/v1/combo/agents', { name: 'x', skills: [skill.json.data.skill_id], mcp_servers: [server()] });
    expect(clash.json).toMatchObject({ code: 10001, message: expect.stringContaining('skills') });
    const unknown = await call('POST', '/v1/combo/agents', {
      name: 'x',
      mcp_servers: [server()],
      approval: { tools: ['stock__secret_tool'] },
    });
    expect(unknown.json).toMatchObject({ code: 10001, message: expect.stringContaining('body.approval.tools.0') });
  });

  it('offers only the allowed tools as <server>__<tool>, calls one with the headers, and reports it as a tool call', async () => {
    const sessionId = await newSession();
    scriptModel(
      { body: chatToolCall([{ id: 'e1', name: 'stock__echo', args: { text: 'twelve crates' } }]) },
      { body: chatAnswer('The server said: echo: twelve crates.') },
    );
    const reply = await complete(sessionId, 'echo twelve crates');
    expect(reply.status).toBe(200);
    expect(reply.json.data.answer).toBe('The server said: echo: twelve crates.');

    const requests = chatRequests(model);
    expect(requests[0]!.tools!.map((t) => t.function.name).sort()).toEqual(['stock__echo', 'stock__fail', 'stock__hang']);
    expect(requests[0]!.tools!.find((t) => t.function.name === 'stock__echo')!.function).toMatchObject({
      description: 'Answers the text it is given',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
    });
    const toolMessage = requests[1]!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMessage.content!)).toEqual({ text: 'echo: twelve crates' });
    expect(mcp.callsOf('echo').at(-1)!.headers.authorization).toBe(TOKEN);
    expect(mcp.callsOf('secret_tool')).toHaveLength(0);

    const traceId = reply.json.data.trace_id as string;
    const events = await runEvents(traceId);
    expect(events.find((e) => e.event === 'tool_call')!.data).toMatchObject({ tool: 'stock__echo', args: { text: 'twelve crates' } });
    expect(events.find((e) => e.event === 'tool_result')!.data).toMatchObject({
      tool: 'stock__echo',
      result: { text: 'echo: twelve crates' },
    });
    const called = await eventually(async () => (await loggedEvents('tool.called', sessionId))[0]);
    expect(called.data).toMatchObject({ tool_name: 'stock__echo', trace_id: traceId, agent_id: agentId });

    // The header's value never reaches Temporal: only the server's name travels; the call carries a readable summary.
    const history = await worker.client.workflow.getHandle(completionWorkflowId(traceId)).fetchHistory();
    const texts = payloadTexts(history).join('\n');
    expect(texts).toContain('echo twelve crates');
    expect(texts).toContain('mcp stock__echo');
    expect(texts).not.toContain('s3cret');
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callTool');
    expect(scheduled).toHaveLength(1);
  });

  it('lists a server once per cache period', async () => {
    const lists = () => mcp.seen.filter((s) => s.method === 'tools/list').length;
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('Nothing to do.') });
    expect((await complete(sessionId, 'anything?')).status).toBe(200);
    const afterFirst = lists();
    expect(afterFirst).toBeGreaterThan(0);
    expect((await complete(sessionId, 'anything else?')).status).toBe(200);
    expect(lists()).toBe(afterFirst);
    expect(
      chatRequests(model)
        .at(-1)!
        .tools!.map((t) => t.function.name),
    ).toContain('stock__echo');
  });

  it('skips a server that cannot be listed: the run goes on without its tools', async () => {
    const agent = (
      await call('POST', '/v1/combo/agents', {
        name: 'Locked out',
        mcp_servers: [server({ name: 'locked', headers: { Authorization: 'Bearer wrong' } })],
      })
    ).json.data;
    const sessionId = await newSession(agent.agent_id);
    scriptModel({ body: chatAnswer('No tools today.') });
    const reply = await complete(sessionId, 'anything?', agent.agent_id);
    expect(reply.status).toBe(200);
    expect(reply.json.data.answer).toBe('No tools today.');
    expect(chatRequests(model)[0]!.tools).toBeUndefined();
    expect(mcp.seen.some((s) => s.method === 'initialize' && s.headers.authorization === 'Bearer wrong')).toBe(true);
  });

  it("feeds a tool's error back to the model and records tool.error", async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatToolCall([{ id: 'f1', name: 'stock__fail', args: {} }]) }, { body: chatAnswer('The warehouse is closed.') });
    const reply = await complete(sessionId, 'order more');
    expect(reply.status).toBe(200);
    const toolMessage = chatRequests(model)[1]!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMessage.content!)).toEqual({ error: 'the warehouse is closed' });
    const errors = await eventually(async () => {
      const found = await loggedEvents('tool.error', sessionId);
      return found.length > 0 ? found : undefined;
    });
    expect(errors[0]!.data).toMatchObject({ tool_name: 'stock__fail', error: 'the warehouse is closed' });
  });

  it('ends the run with 30002 when a tool hangs past its deadline', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatToolCall([{ id: 'h1', name: 'stock__hang', args: {} }]) });
    const reply = await complete(sessionId, 'wait for it');
    expect(reply.status).toBe(504);
    expect(reply.json).toMatchObject({ code: 30002, message: expect.stringContaining('stock__hang') });
    const errors = await loggedEvents('tool.error', sessionId);
    expect(errors).toHaveLength(1);
    expect(mcp.callsOf('hang')).toHaveLength(2);
  });

  it('holds an MCP tool named in approval until a person approves', async () => {
    const updated = await call('PUT', `/v1/combo/agents/${agentId}`, { approval: { tools: ['stock__echo'], timeout_s: 60 } });
    expect(updated.json.code).toBe(0);
    const sessionId = await newSession();
    scriptModel({ body: chatToolCall([{ id: 'a1', name: 'stock__echo', args: { text: 'approved' } }]) }, { body: chatAnswer('Done.') });
    const accepted = await call('POST', `/v1/combo/agents/${agentId}/completions`, {
      session_id: sessionId,
      question: 'echo approved',
      background: true,
    });
    const traceId = accepted.json.data.trace_id as string;
    const held = await eventually(async () => {
      const run = (await call('GET', `/v1/combo/completions/${traceId}`)).json.data;
      return run.status === 'waiting_approval' ? run : undefined;
    });
    expect(held.approvals[0]).toMatchObject({ tool: 'stock__echo', arguments: { text: 'approved' }, status: 'pending' });
    const echoes = mcp.callsOf('echo').length;
    const decided = await call('POST', `/v1/combo/completions/${traceId}/approvals/${held.approvals[0].approval_id}`, {
      decision: 'approve',
    });
    expect(decided.status).toBe(200);
    const done = await eventually(async () => {
      const run = (await call('GET', `/v1/combo/completions/${traceId}`)).json.data;
      return run.status === 'completed' ? run : undefined;
    });
    expect(done.answer).toBe('Done.');
    expect(mcp.callsOf('echo')).toHaveLength(echoes + 1);
  });
});
