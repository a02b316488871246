import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, chatError } from '../support/scripted-chat';
import { anthropicMessage, anthropicStream, geminiAnswer } from '../support/scripted-providers';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

/**
 * Runs of agents that name a tenant's model provider, on the real stack: the provider's own wire
 * format, its key, its first model when the agent names none; never the offline mode (this
 * installation has no default model); and the provider check through HTTP.
 */
describe('runs on tenants’ model providers', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  const anthropic = new ScriptedUpstream();
  const openaiCompatible = new ScriptedUpstream();
  const google = new ScriptedUpstream();
  const urls: Record<string, string> = {};
  /** Schedules live on the shared dev server beyond this test's database: every one made here is removed at the end. */
  const cronIds: string[] = [];

  beforeAll(async () => {
    urls.anthropic = await anthropic.start();
    urls.compatible = await openaiCompatible.start();
    urls.google = await google.start();
    const ports = Object.values(urls).map((u) => `127.0.0.1:${new URL(u).port}`);
    // No LLM_BASE_URL: agents without a provider answer offline. The scripted servers are allowed by name.
    api = await startTestApi({
      ALLOW_PRIVATE_URLS: 'false',
      MODEL_PROVIDER_PRIVATE_HOSTS: ports.join(','),
      LLM_TIMEOUT_MS: '5000',
      LLM_MAX_ATTEMPTS: '2',
    });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    for (const cronId of cronIds)
      await api.services.temporal.schedule
        .getHandle(`cron-${cronId}`)
        .delete()
        .catch(() => undefined);
    await worker?.stop();
    await api?.close();
    await Promise.all([anthropic.stop(), openaiCompatible.stop(), google.stop()]);
  });

  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api.call(method, path, { key: api.adminKey, body });
    expect({ path, code: res.json.code, message: res.json.message }).toEqual({ path, code: 0, message: 'ok' });
    return res.json.data;
  };
  const agentOn = async (providerId: string | undefined, model?: string) =>
    (
      await ok('POST', '/v1/combo/agents', {
        name: `agent on ${providerId ?? 'the default'}`,
        instructions: 'Answer briefly.',
        model: { ...(providerId ? { provider_id: providerId } : {}), ...(model ? { model } : {}) },
      })
    ).agent_id as string;
  const session = async (agentId: string) =>
    (await ok('POST', `/v1/combo/agents/${agentId}/sessions`, { user_id: 'u1' })).session_id as string;

  it('answers through an Anthropic provider with its key and first model, plain and streamed, never offline', async () => {
    const provider = await ok('POST', '/v1/model-providers', {
      name: 'anthropic scripted',
      kind: 'anthropic',
      base_url: urls.anthropic,
      api_key: 'anthropic-key-for-runs',
      models: [{ id: 'claude-first' }, { id: 'claude-second' }],
    });
    const agentId = await agentOn(provider.provider_id);
    const sessionId = await session(agentId);

    anthropic.reply = () => ({ body: anthropicMessage('Refunds take five days.') });
    const answered = await ok('POST', `/v1/combo/agents/${agentId}/completions`, {
      session_id: sessionId,
      question: 'How long do refunds take?',
    });
    expect(answered).toMatchObject({ answer: 'Refunds take five days.', offline: false, model: 'claude-scripted' });
    expect(answered.cost.tokens).toBe(27);
    const sent = anthropic.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('anthropic-key-for-runs');
    expect(sent.body).toMatchObject({
      model: 'claude-first',
      system: [expect.objectContaining({ text: expect.stringContaining('Answer briefly.') })],
    });

    anthropic.reply = () => ({ stream: anthropicStream(['Five ', 'working ', 'days.']), chunkDelayMs: 20 });
    const res = await fetch(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'And in working days?', stream: true }),
    });
    const traceId = (await res.text()).match(/"trace_id":"([^"]+)"/)![1]!;
    const stream = await readSse(`${api.url}/v1/combo/completions/${traceId}/events`, {
      headers: { authorization: `Bearer ${api.adminKey}` },
    });
    const messages = stream.events.filter((e) => e.event === 'message');
    expect(messages.at(-1)!.data.answer).toBe('Five working days.');
    expect(stream.events.at(-1)!.event).toBe('done');
    // The model saw the earlier turn of the session.
    const history = (anthropic.requests.at(-1)!.body as { messages: Array<{ role: string }> }).messages.map((m) => m.role);
    expect(history).toEqual(['user', 'assistant', 'user']);
  });

  it('answers through Google and OpenAI-compatible providers with the model the agent names', async () => {
    const gemini = await ok('POST', '/v1/model-providers', {
      name: 'gemini scripted',
      kind: 'google',
      base_url: urls.google,
      api_key: 'google-key-for-runs',
      models: [{ id: 'gemini-a' }, { id: 'gemini-b' }],
    });
    google.reply = () => ({ body: geminiAnswer('Bonjour.') });
    const geminiAgent = await agentOn(gemini.provider_id, 'gemini-b');
    const viaGoogle = await ok('POST', `/v1/combo/agents/${geminiAgent}/completions`, {
      session_id: await session(geminiAgent),
      question: 'Hello in French?',
    });
    expect(viaGoogle).toMatchObject({ answer: 'Bonjour.', offline: false });
    expect(google.requests.at(-1)).toMatchObject({ path: '/v1/models/gemini-b:generateContent' });
    expect(google.requests.at(-1)!.headers['x-goog-api-key']).toBe('google-key-for-runs');

    const local = await ok('POST', '/v1/model-providers', {
      name: 'local server',
      kind: 'openai-compatible',
      base_url: urls.compatible,
      models: [{ id: 'llama-local', input_price_per_million: 2, output_price_per_million: 10 }],
    });
    openaiCompatible.reply = () => ({ body: chatAnswer('Hola.', { prompt_tokens: 12, completion_tokens: 8 }) });
    const localAgent = await agentOn(local.provider_id);
    const viaLocal = await ok('POST', `/v1/combo/agents/${localAgent}/completions`, {
      session_id: await session(localAgent),
      question: 'Hello in Spanish?',
    });
    expect(viaLocal).toMatchObject({ answer: 'Hola.', offline: false });
    // Priced at the provider's prices for the model: (12 × 2 + 8 × 10) / 1,000,000.
    expect(viaLocal.cost).toMatchObject({ tokens: 20, input_tokens: 12, output_tokens: 8, amount: 0.000104 });
    // Gemini's models have no price: the split without an amount.
    expect(viaGoogle.cost).toMatchObject({ tokens: 21, input_tokens: 17, output_tokens: 4, amount: null });
    expect(openaiCompatible.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect((openaiCompatible.requests.at(-1)!.body as { model: string }).model).toBe('llama-local');

    // An agent without a provider, on an installation without a default model: offline, as before.
    const plain = await agentOn(undefined);
    const offline = await ok('POST', `/v1/combo/agents/${plain}/completions`, { session_id: await session(plain), question: 'Anything?' });
    expect(offline).toMatchObject({ offline: true, model: null });
  });

  it('runs a cron job’s code review on the agent’s provider, not the rule-based route of an installation without a model', async () => {
    const provider = await ok('POST', '/v1/model-providers', {
      name: 'anthropic for reviews',
      kind: 'anthropic',
      base_url: urls.anthropic,
      api_key: 'anthropic-key-for-reviews',
      models: [{ id: 'claude-reviewer' }],
    });
    const agentId = await agentOn(provider.provider_id);
    const findings = { report: 'No issues found.', findings: [] };
    anthropic.reply = () => ({ body: anthropicMessage(JSON.stringify(findings)) });
    const job = await ok('POST', '/v1/cron', {
      name: 'nightly review',
      cron: '0 0 1 1 *',
      paused: true,
      agent_id: agentId,
      question: 'Review the change.',
      session_template: 'code-review',
      inputs: { pr_url: 'https://git.example/pr/7' },
    });
    cronIds.push(job.cron_id);
    await ok('POST', `/v1/cron/${job.cron_id}/trigger`);
    const run = await eventually(async () => {
      const [latest] = (await ok('GET', `/v1/combo/agents/${agentId}/completions?kind=cron&page_size=1`)).items;
      return latest && latest.status !== 'running' ? latest : undefined;
    }, 60_000);
    expect(run).toMatchObject({ status: 'completed', route: expect.stringMatching(/^@review@llm@/) });
    expect((anthropic.requests.at(-1)!.body as { model: string }).model).toBe('claude-reviewer');
  });

  it('fails a run with 30001 carrying the provider’s message when it refuses the call', async () => {
    const provider = await ok('POST', '/v1/model-providers', {
      name: 'refusing server',
      kind: 'openai-compatible',
      base_url: urls.compatible,
      api_key: 'sk-refused-key-0123456789',
      models: [{ id: 'llama-local' }],
    });
    openaiCompatible.reply = () => ({
      status: 401,
      body: chatError('Incorrect API key provided: sk-refused-key-0123456789', 'invalid_request_error'),
    });
    const agentId = await agentOn(provider.provider_id);
    const res = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key: api.adminKey,
      body: { session_id: await session(agentId), question: 'Hello?' },
    });
    expect(res.status).toBe(502);
    expect(res.json.code).toBe(30001);
    expect(res.json.message).toContain('Incorrect API key provided');
    expect(JSON.stringify(res.json)).not.toContain('sk-refused-key-0123456789');
  });

  it('checks a provider with one minimal call: its latency and model, or 30001 with the upstream error', async () => {
    const provider = await ok('POST', '/v1/model-providers', {
      name: 'checked server',
      kind: 'openai-compatible',
      base_url: urls.compatible,
      api_key: 'sk-check-key',
      headers: { 'X-Route': 'r1' },
      models: [{ id: 'scripted-a' }, { id: 'scripted-b' }],
    });
    openaiCompatible.reply = () => ({ body: chatAnswer('pong') });
    const checked = await ok('POST', `/v1/model-providers/${provider.provider_id}/check`, { model: 'scripted-b' });
    expect(checked).toEqual({ ok: true, latency_ms: expect.any(Number), model: 'scripted-model' });
    const sent = openaiCompatible.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-check-key');
    expect(sent.headers['x-route']).toBe('r1');
    expect(sent.body).toMatchObject({ model: 'scripted-b', max_tokens: 1 });

    openaiCompatible.reply = () => ({ status: 503, body: chatError('model loading, try again') });
    const failed = await api.call('POST', `/v1/model-providers/${provider.provider_id}/check`, { key: api.adminKey, body: {} });
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ code: 30001, data: { upstream_status: 503 } });
    expect(failed.json.message).toContain('model loading, try again');
    expect((openaiCompatible.requests.at(-1)!.body as { model: string }).model).toBe('scripted-a');
  });
});
