import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const ROOT = resolve(__dirname, '../..');
// stack/test.sh installs the PyPI mcp package there (stack/install.sh python-clients).
const VENV = process.env.PYTHON_CLIENTS_VENV ?? join(ROOT, '.stack/python-clients');
const CLIENT = join(ROOT, 'test/fixtures/mcp/python_client.py');

const answerTo = (request: WireChatRequest) => `Answer to: ${[...request.messages].reverse().find((m) => m.role === 'user')!.content}`;

/**
 * The PyPI `mcp` client, unmodified (test/fixtures/mcp/python_client.py), against /v1/mcp: the
 * initialize handshake, the tools listed, an agent asked and its run read back by trace id, and a
 * tool's failure seen as a result with is_error.
 */
describe('MCP server (PyPI mcp client)', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  const model = new ScriptedUpstream();

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (request) => ({ body: chatAnswer(answerTo(request.body as WireChatRequest)) });
    api = await startTestApi({ LLM_BASE_URL: modelUrl });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  it('initializes, lists the tools, asks an agent and reads its run', async () => {
    const agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Python helper' } })).json.data
      .agent_id as string;
    const { stdout } = await promisify(execFile)(join(VENV, 'bin/python'), [CLIENT, `${api.url}/v1/mcp`, api.adminKey, agentId], {
      timeout: 60_000,
    });
    const seen = JSON.parse(stdout);

    expect(seen.client_version).toBe('2.3.0');
    expect(seen.initialize).toEqual({ protocol_version: '2025-11-25', server: 'combo-agent-service' });
    expect(seen.tools).toEqual(['ask_agent', 'get_document', 'get_run', 'list_agents', 'search_knowledge']);
    expect(seen.ask.is_error).toBe(false);
    expect(seen.ask.structured).toMatchObject({
      answer: 'Answer to: Python asks over MCP',
      trace_id: expect.stringMatching(/^trc_/),
      session_id: expect.stringMatching(/^ses_/),
      cost: { tokens: 20 },
    });
    expect(seen.run).toEqual({
      is_error: false,
      structured: expect.objectContaining({
        trace_id: seen.ask.structured.trace_id,
        status: 'completed',
        answer: 'Answer to: Python asks over MCP',
        agent_id: agentId,
      }),
    });
    expect(seen.missing.is_error).toBe(true);
    expect(seen.missing.text).toMatch(/^error 10004: /);

    const run = (await api.call('GET', `/v1/combo/completions/${seen.ask.structured.trace_id}`, { key: api.adminKey })).json.data;
    expect(run).toMatchObject({ kind: 'chat', status: 'completed', session_id: seen.ask.structured.session_id });
  });
});
