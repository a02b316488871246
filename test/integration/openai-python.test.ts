import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer, streamedAnswer, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const ROOT = resolve(__dirname, '../..');
// stack/test.sh installs the PyPI openai package there (stack/install.sh python-clients).
const VENV = process.env.PYTHON_CLIENTS_VENV ?? join(ROOT, '.stack/python-clients');
const CLIENT = join(ROOT, 'test/fixtures/openai/official_client.py');

const answerTo = (request: WireChatRequest) => `Answer to: ${[...request.messages].reverse().find((m) => m.role === 'user')!.content}`;

/**
 * The official `openai` client from PyPI, unmodified (test/fixtures/openai/official_client.py):
 * models listed, a completion whole and streamed with usage, a multi-turn conversation on a session
 * (by header, then found from its history), an unknown model and a rate-limited call, each seen
 * as the client's own objects and typed errors.
 */
describe('OpenAI-compatible API (official openai PyPI client)', () => {
  let api: TestApi;
  let limitedApi: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  const model = new ScriptedUpstream();

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (request) => {
      const body = request.body as WireChatRequest;
      return body.stream
        ? { stream: streamedAnswer(answerTo(body), { pieces: 3 }), chunkDelayMs: 20 }
        : { body: chatAnswer(answerTo(body)) };
    };
    api = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_COMPLETIONS_PER_MIN: '1000' });
    limitedApi = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_COMPLETIONS_PER_MIN: '1' });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await limitedApi?.close();
    await model.stop();
  });

  it('lists, answers, streams with usage, keeps a conversation on its session and raises typed errors', async () => {
    const agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Python helper' } })).json.data
      .agent_id as string;
    const { stdout } = await promisify(execFile)(
      join(VENV, 'bin/python'),
      [CLIENT, `${api.url}/v1/openai`, api.adminKey, agentId, `${limitedApi.url}/v1/openai`, limitedApi.adminKey],
      { timeout: 60_000 },
    );
    const seen = JSON.parse(stdout);

    expect(seen.models).toContain(agentId);
    expect(seen.create).toMatchObject({
      content: 'Answer to: Python asks once',
      finish_reason: 'stop',
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
      session_id: expect.stringMatching(/^ses_/),
    });
    expect(seen.create.id).toBe(`chatcmpl-${seen.create.trace_id}`);
    const run = (await api.call('GET', `/v1/combo/completions/${seen.create.trace_id}`, { key: api.adminKey })).json.data;
    expect(run).toMatchObject({ status: 'completed', kind: 'chat', session_id: seen.create.session_id });

    expect(seen.stream).toMatchObject({
      text: 'Answer to: Python streams',
      finish_reason: 'stop',
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
    });
    expect(seen.stream.pieces).toBeGreaterThan(1);

    expect(seen.conversation).toEqual({
      bound_session: seen.create.session_id,
      found_session: seen.create.session_id,
      last_answer: 'Answer to: Python follows up again',
    });
    const turns = (await api.call('GET', `/v1/combo/sessions/${seen.create.session_id}/messages`, { key: api.adminKey })).json.data.items;
    expect(turns.map((m: { content: string }) => m.content)).toEqual([
      'Python asks once',
      'Answer to: Python asks once',
      'Python follows up',
      'Answer to: Python follows up',
      'Python follows up again',
      'Answer to: Python follows up again',
    ]);

    expect(seen.unknown_model).toEqual({ status: 404, code: 'model_not_found', type: 'invalid_request_error' });
    expect(seen.rate_limited[0]).toEqual({ error: 'NotFoundError', status: 404 });
    expect(seen.rate_limited[1]).toMatchObject({ error: 'RateLimitError', code: 'rate_limit_exceeded' });
    expect(Number(seen.rate_limited[1].retry_after)).toBeGreaterThan(0);
  }, 90_000);
});
