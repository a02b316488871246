import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallToolResult, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, chatRequests, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const lastUserText = (request: WireChatRequest) => [...request.messages].reverse().find((m) => m.role === 'user')!.content;
const answerTo = (question: unknown) => `Answer to: ${String(question)}`;

/** An MCP client of the official TypeScript SDK, connected to /v1/mcp with a bearer credential. */
async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'mcp-server-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/v1/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool's structured result; throws with its text when the tool failed. */
async function callOk(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return result.structuredContent as any;
}

/** A tool's failure: its result with isError and the contract's code and message. */
async function callFailing(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  const text = (result.content[0] as { text: string }).text;
  expect(text).not.toMatch(/\n\s+at /);
  return { text, error: (result.structuredContent as { error: { code: number; message: string } }).error };
}

/**
 * The service as an MCP server, through the official TypeScript SDK client over Streamable HTTP:
 * the tools listed, agents listed, an agent asked as a normal run (on a new session, then again on
 * that session), a knowledge search, a document and a run read, and the refusals (a wrong key,
 * another tenant's agent, the completions rate limit).
 */
describe('MCP server (official TypeScript SDK client)', () => {
  let api: TestApi;
  let limitedApi: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let agentId: string;
  let client: Client;
  let modelUrl: string;

  beforeAll(async () => {
    modelUrl = await model.start();
    model.reply = (request) => {
      const question = lastUserText(request.body as WireChatRequest);
      // This one is answered later than the slow API's reply wait (100 ms).
      return { body: chatAnswer(answerTo(question)), delayMs: question === 'Take your time' ? 1_500 : 0 };
    };
    api = await startTestApi({ LLM_BASE_URL: modelUrl, LLM_MODEL: 'scripted-model', RATE_LIMIT_COMPLETIONS_PER_MIN: '1000' });
    // One completion a minute, and an identity provider: OAuth metadata served, 401s point to it.
    limitedApi = await startTestApi(
      { RATE_LIMIT_COMPLETIONS_PER_MIN: '1', JWT_ISSUER: 'https://idp.example.test', PUBLIC_BASE_URL: 'https://agents.example.test/' },
      { rateLimitSyncMs: 0 },
    );
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (
      await api.call('POST', '/v1/combo/agents', {
        key: api.adminKey,
        body: { name: 'Helpdesk', description: 'Answers questions about routers', instructions: 'Answer briefly.' },
      })
    ).json.data.agent_id;
    client = await connect(api.url, api.adminKey);
  });
  afterAll(async () => {
    await client?.close();
    await worker?.stop();
    await api?.close();
    await limitedApi?.close();
    await model.stop();
  });

  it('lists its tools with input schemas and descriptions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_agent', 'get_document', 'get_run', 'list_agents', 'search_knowledge']);
    const ask = tools.find((t) => t.name === 'ask_agent')!;
    expect(ask.description).toMatch(/completion run/);
    expect(ask.inputSchema.required).toEqual(['agent_id', 'question']);
    expect(Object.keys(ask.inputSchema.properties ?? {}).sort()).toEqual(['agent_id', 'question', 'session_id']);
    expect(client.getServerVersion()?.name).toBe('combo-agent-service');
  });

  it('negotiates the latest revision of the SDK, which docs/mcp.md names with the others it supports', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/v1/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${api.adminKey}` } },
    });
    const probe = new Client({ name: 'revision-probe', version: '1.0.0' });
    await probe.connect(transport);
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    await probe.close();
    const docs = readFileSync(join(__dirname, '../../docs/mcp.md'), 'utf8');
    const revisions = /### Specification revisions\n\n([\s\S]*?)\n\n/.exec(docs)![1]!;
    expect(revisions).toContain(`**${LATEST_PROTOCOL_VERSION}**`);
    for (const revision of SUPPORTED_PROTOCOL_VERSIONS) expect(revisions).toContain(revision);
  });

  it("lists the tenant's agents", async () => {
    const { agents } = await callOk(client, 'list_agents', {});
    expect(agents).toEqual([{ agent_id: agentId, name: 'Helpdesk', description: 'Answers questions about routers' }]);
  });

  it('asks an agent as a normal run on a new session, then continues that session', async () => {
    const first = await callOk(client, 'ask_agent', { agent_id: agentId, question: 'How do I reset the router?' });
    expect(first).toMatchObject({
      answer: answerTo('How do I reset the router?'),
      trace_id: expect.stringMatching(/^trc_/),
      session_id: expect.stringMatching(/^ses_/),
      stop_reason: 'answered',
      cost: { tokens: 20, input_tokens: 12, output_tokens: 8 },
    });
    const run = (await api.call('GET', `/v1/combo/completions/${first.trace_id}`, { key: api.adminKey })).json.data;
    expect(run).toMatchObject({ kind: 'chat', status: 'completed', agent_id: agentId, session_id: first.session_id });
    expect(run.cost).toMatchObject({ tokens: 20 });
    const session = (await api.call('GET', `/v1/combo/sessions/${first.session_id}`, { key: api.adminKey })).json.data;
    expect(session).toMatchObject({ agent_id: agentId, name: 'How do I reset the router?', metadata: { source: 'mcp' } });

    const second = await callOk(client, 'ask_agent', {
      agent_id: agentId,
      question: 'And the guest network?',
      session_id: first.session_id,
    });
    expect(second.session_id).toBe(first.session_id);
    expect(second.answer).toBe(answerTo('And the guest network?'));
    // The model saw the session's history: the first turn, then the new question.
    const sent = chatRequests(model).at(-1)!.messages.slice(1);
    expect(sent.map((m) => [m.role, typeof m.content === 'string' ? m.content.trim() : m.content])).toEqual([
      ['user', 'How do I reset the router?'],
      ['assistant', answerTo('How do I reset the router?')],
      ['user', 'And the guest network?'],
    ]);

    // Without a session: another new one.
    const third = await callOk(client, 'ask_agent', { agent_id: agentId, question: 'Unrelated question' });
    expect(third.session_id).not.toBe(first.session_id);
  });

  it('follows a run past the reply wait to its end, while the client stays', async () => {
    const slow = await startTestApi({ LLM_BASE_URL: modelUrl, COMPLETION_REPLY_WAIT_MS: '100' });
    const slowWorker = await startTestWorker(slow, { dispatcher: false });
    const slowClient = await connect(slow.url, slow.adminKey);
    try {
      const slowAgent = (await slow.call('POST', '/v1/combo/agents', { key: slow.adminKey, body: { name: 'Slow' } })).json.data.agent_id;
      const answered = await callOk(slowClient, 'ask_agent', { agent_id: slowAgent, question: 'Take your time' });
      expect(answered.answer).toBe(answerTo('Take your time'));
      const run = (await slow.call('GET', `/v1/combo/completions/${answered.trace_id}`, { key: slow.adminKey })).json.data;
      expect(run.status).toBe('completed');
    } finally {
      await slowClient.close();
      await slowWorker.stop();
      await slow.close();
    }
  });

  it('searches a knowledge base and reads a document', async () => {
    const kbId = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'Lighthouses' } })).json.data.kb_id;
    const text = 'The lighthouse keeper lights the lamp every evening so that ships find the harbour at night.';
    const up = await api.upload(
      '/v1/document',
      api.adminKey,
      { kb_id: kbId },
      { name: 'keeper.txt', bytes: Buffer.from(text), type: 'text/plain' },
    );
    const docId = up.json.data.doc_id as string;
    const doc = await eventually(async () => {
      const d = await callOk(client, 'get_document', { doc_id: docId });
      return d.status === 'parsing' ? undefined : d;
    }, 60_000);
    expect(doc).toMatchObject({ doc_id: docId, kb_id: kbId, name: 'keeper.txt', status: 'ready', chunk_count: 1 });

    const found = await callOk(client, 'search_knowledge', { kb_ids: [kbId], query: 'who lights the lamp for ships?', top_k: 3 });
    expect(found.chunks).toHaveLength(1);
    expect(found.chunks[0]).toMatchObject({ doc_id: docId, kb_id: kbId, content: expect.stringContaining('lighthouse keeper') });

    const missing = await callFailing(client, 'get_document', { doc_id: 'doc_nosuchdocument' });
    expect(missing.error.code).toBe(10004);
  });

  it('answers a lone tools/call without initialize (stateless); a retry with its Idempotency-Key attaches to the first run', async () => {
    const send = async () => {
      const res = await fetch(`${api.url}/v1/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${api.adminKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'idempotency-key': 'mcp-retried-question',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'ask_agent', arguments: { agent_id: agentId, question: 'Asked twice over the wire' } },
        }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      return (await res.json()) as { id: number; result: { structuredContent: { trace_id: string; session_id: string; answer: string } } };
    };
    const asked = () => chatRequests(model).filter((r) => lastUserText(r) === 'Asked twice over the wire').length;
    const first = await send();
    expect(first.id).toBe(7);
    expect(first.result.structuredContent.answer).toBe(answerTo('Asked twice over the wire'));
    const again = await send();
    expect(again.result.structuredContent).toEqual(first.result.structuredContent);
    expect(asked()).toBe(1);
  });

  it('reads a run by its trace id; an unknown one is 10004', async () => {
    const asked = await callOk(client, 'ask_agent', { agent_id: agentId, question: 'What is a run?' });
    const run = await callOk(client, 'get_run', { trace_id: asked.trace_id });
    expect(run).toMatchObject({
      trace_id: asked.trace_id,
      session_id: asked.session_id,
      agent_id: agentId,
      kind: 'chat',
      status: 'completed',
      question: 'What is a run?',
      answer: answerTo('What is a run?'),
      cost: { tokens: 20 },
      error: null,
    });
    const unknown = await callFailing(client, 'get_run', { trace_id: 'trc_nosuchrun' });
    expect(unknown.error).toMatchObject({ code: 10004, message: expect.stringContaining('trc_nosuchrun') });
  });

  it("refuses a wrong key (401, the contract's body) and never shows another tenant's agents", async () => {
    const refused = await connect(api.url, 'combo_wrong_key').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(StreamableHTTPError);
    expect((refused as StreamableHTTPError).code).toBe(401);
    const raw = await api.call('POST', '/v1/mcp', {
      key: 'combo_wrong_key',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(raw.status).toBe(401);
    expect(raw.json.code).toBe(10002);
    // No identity provider configured here: no challenge pointing to metadata, and no metadata.
    expect(raw.headers.get('www-authenticate')).toBeNull();
    expect((await api.call('GET', '/.well-known/oauth-protected-resource/v1/mcp')).status).toBe(404);

    const other = await connect(api.url, await consoleToken({ tenant_id: 'other-tenant', sub: 'eve', roles: ['admin'] }));
    try {
      expect((await callOk(other, 'list_agents', {})).agents).toEqual([]);
      const asked = await callFailing(other, 'ask_agent', { agent_id: agentId, question: 'Whose agent is this?' });
      expect(asked.error.code).toBe(10004);
    } finally {
      await other.close();
    }
  });

  it('answers GET and DELETE with 405: the server is stateless', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await api.call(method, '/v1/mcp', { key: api.adminKey });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('takes one from the completions family per ask_agent call: over it, error 10006', async () => {
    const limited = await connect(limitedApi.url, limitedApi.adminKey);
    try {
      // The first call is counted (and fails on the unknown agent: no worker here); the second is over the ceiling.
      expect((await callFailing(limited, 'ask_agent', { agent_id: 'agt_nosuchagent', question: 'one' })).error.code).toBe(10004);
      const over = await callFailing(limited, 'ask_agent', { agent_id: 'agt_nosuchagent', question: 'two' });
      expect(over.error.code).toBe(10006);
      expect(over.text).toMatch(/rate limit of 1 completions per minute/);
      // Other tools are not completions.
      expect((await callOk(limited, 'list_agents', {})).agents).toEqual([]);
    } finally {
      await limited.close();
    }
  });

  it('with an identity provider configured: serves RFC 9728 metadata and points 401s to it', async () => {
    const metadata = await limitedApi.call('GET', '/.well-known/oauth-protected-resource/v1/mcp');
    expect(metadata.status).toBe(200);
    expect(metadata.json).toEqual({
      resource: 'https://agents.example.test/v1/mcp',
      authorization_servers: ['https://idp.example.test'],
      bearer_methods_supported: ['header'],
      resource_name: 'Agent Orchestration Service (MCP)',
    });
    expect((await limitedApi.call('GET', '/.well-known/oauth-protected-resource')).json).toEqual(metadata.json);
    const refused = await limitedApi.call('POST', '/v1/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(refused.status).toBe(401);
    expect(refused.json.code).toBe(10002);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="https://agents.example.test/.well-known/oauth-protected-resource/v1/mcp"',
    );
  });
});
