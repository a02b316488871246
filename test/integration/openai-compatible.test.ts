import OpenAI from 'openai';
import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer, chatError, chatRequests, chatToolCall, streamedAnswer, type WireChatRequest } from '../support/scripted-chat';
import { eventually } from '../support/consumer';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const lastUserText = (request: WireChatRequest) => [...request.messages].reverse().find((m) => m.role === 'user')!.content;
const answerTo = (question: string | null) => `Answer to: ${question}`;
/** What the model was given besides the agent's instructions: the conversation's turns, in order. */
const conversationOf = (request: WireChatRequest) =>
  request.messages
    .slice(1)
    .map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content.replace(/\s+$/, '') : m.content }));

/**
 * The OpenAI-compatible API through the official `openai` npm client, unmodified: agents listed as
 * models, completions whole and streamed (with usage), conversations held by our sessions (bound by
 * header, found again from the history, or opened with the history the caller brought), and the
 * client's own typed errors for an unknown model, a refused field, bad credentials and the rate limit.
 */
describe('OpenAI-compatible API (official openai npm client)', () => {
  let api: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let agentId: string;
  let client: OpenAI;

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (request) => {
      const body = request.body as WireChatRequest;
      const question = lastUserText(body) ?? '';
      // A refusal the model gives at once (a 4xx is not retried): the run fails with 30001.
      if (question.includes('[refuse]')) return { status: 400, body: chatError('refused by the scripted model', 'invalid_request_error') };
      const text = answerTo(question);
      // `[slow]`: an answer that takes a few seconds, so that a run is seen going.
      const slow = question.includes('[slow]');
      return body.stream || slow
        ? { stream: streamedAnswer(text, { pieces: slow ? 10 : 4 }), chunkDelayMs: slow ? 300 : 20 }
        : { body: chatAnswer(text) };
    };
    api = await startTestApi({ LLM_BASE_URL: modelUrl, LLM_MODEL: 'scripted-model', RATE_LIMIT_COMPLETIONS_PER_MIN: '1000' });
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (
      await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Helpdesk', instructions: 'Answer briefly.' } })
    ).json.data.agent_id;
    client = new OpenAI({ apiKey: api.adminKey, baseURL: `${api.url}/v1/openai`, maxRetries: 0 });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const sessionsOfAgent = async () =>
    (await api.call('GET', `/v1/combo/agents/${agentId}/sessions?page_size=100`, { key: api.adminKey })).json.data.items as Array<{
      session_id: string;
      name: string | null;
      metadata: Record<string, string>;
    }>;

  it('lists the tenant agents as models and retrieves one; an unknown one is NotFoundError with model_not_found', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    expect(models).toEqual(expect.arrayContaining([expect.objectContaining({ id: agentId, object: 'model', name: 'Helpdesk' })]));
    expect((await client.models.retrieve(agentId)).id).toBe(agentId);

    const missing = await client.models.retrieve('agt_nosuchagent').catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('answers a whole completion as a normal run, with usage from the split tokens and the run named in headers', async () => {
    const { data: completion, response } = await client.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'How do I reset the router?' }], temperature: 0.2 })
      .withResponse();
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(agentId);
    expect(completion.choices[0]!.message.content).toBe(answerTo('How do I reset the router?'));
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 });

    const traceId = response.headers.get('x-combo-trace-id')!;
    const sessionId = response.headers.get('x-combo-session-id')!;
    expect(completion.id).toBe(`chatcmpl-${traceId}`);
    const run = (await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data;
    expect(run).toMatchObject({
      kind: 'chat',
      status: 'completed',
      agent_id: agentId,
      session_id: sessionId,
      question: 'How do I reset the router?',
    });
    expect(run.cost).toMatchObject({ input_tokens: 12, output_tokens: 8, tokens: 20 });
    const session = (await sessionsOfAgent()).find((s) => s.session_id === sessionId);
    expect(session).toMatchObject({ name: 'How do I reset the router?', metadata: { source: 'openai' } });
  });

  it('streams chunks of new text only, then finish_reason, usage and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'Stream me the answer' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(answerTo('Stream me the answer'));
    // More than one piece of text: the answer arrived as it was written.
    expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(1);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('keeps a conversation sent whole every time in one session, found again from its history', async () => {
    const first = 'What is the guest network?';
    const one = await client.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: first }] }).withResponse();
    const sessionId = one.response.headers.get('x-combo-session-id')!;
    const history = [
      { role: 'user' as const, content: first },
      { role: 'assistant' as const, content: one.data.choices[0]!.message.content! },
    ];
    const two = await client.chat.completions
      .create({ model: agentId, messages: [...history, { role: 'user', content: 'And its password?' }], stream: true })
      .withResponse();
    let streamed = '';
    for await (const chunk of two.data) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(two.response.headers.get('x-combo-session-id')).toBe(sessionId);
    expect(streamed).toBe(answerTo('And its password?'));
    // The model read the session's history: the first turn, then the new question.
    expect(conversationOf(chatRequests(model).at(-1)!)).toEqual([
      { role: 'user', content: first },
      { role: 'assistant', content: answerTo(first) },
      { role: 'user', content: 'And its password?' },
    ]);

    // The same first question with another answer is another conversation: a session of its own.
    const other = await client.chat.completions
      .create({
        model: agentId,
        messages: [
          { role: 'user', content: first },
          { role: 'assistant', content: 'Something else' },
          { role: 'user', content: 'Go on' },
        ],
      })
      .withResponse();
    expect(other.response.headers.get('x-combo-session-id')).toMatch(/^ses_/);
    expect(other.response.headers.get('x-combo-session-id')).not.toBe(sessionId);
  });

  it('never lets two conversations that began alike meet in one session while one of them runs', async () => {
    const queued = (
      await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Queues', multitask_strategy: 'enqueue' } })
    ).json.data.agent_id as string;
    const greeting = await client.chat.completions.create({ model: queued, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    const sessionId = greeting.response.headers.get('x-combo-session-id')!;
    const history = [
      { role: 'user' as const, content: 'hi' },
      { role: 'assistant' as const, content: greeting.data.choices[0]!.message.content! },
    ];
    // Conversation A continues the session with a slow question; while its run goes, B (the same beginning) asks.
    const a = client.chat.completions
      .create({ model: queued, messages: [...history, { role: 'user', content: 'A secret question [slow]' }] })
      .withResponse();
    await eventually(async () => {
      const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key: api.adminKey })).json.data.items;
      return runs.some((r: { status: string }) => r.status === 'running') ? true : undefined;
    });
    const b = await client.chat.completions
      .create({ model: queued, messages: [...history, { role: 'user', content: 'B question' }] })
      .withResponse();
    expect(b.response.headers.get('x-combo-session-id')).toMatch(/^ses_/);
    expect(b.response.headers.get('x-combo-session-id')).not.toBe(sessionId);
    // B's model read B's conversation only.
    const bRequest = chatRequests(model).find((r) => lastUserText(r) === 'B question')!;
    expect(JSON.stringify(bRequest.messages)).not.toContain('A secret question');
    expect((await a).response.headers.get('x-combo-session-id')).toBe(sessionId);
  });

  it('keeps a streamed conversation whose answer had an earlier step in its session, and replays a retried key', async () => {
    const key = `retry-${Date.now()}`;
    const ask = () =>
      client.chat.completions
        .create({ model: agentId, messages: [{ role: 'user', content: 'Keyed question' }] }, { headers: { 'Idempotency-Key': key } })
        .withResponse();
    const first = await ask();
    const again = await ask();
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data.id).toBe(first.data.id);
    expect(again.response.headers.get('x-combo-session-id')).toBe(first.response.headers.get('x-combo-session-id'));
    // The same key with another history is another request: not the first one's answer.
    const other = await client.chat.completions
      .create(
        {
          model: agentId,
          messages: [
            { role: 'user', content: 'Else' },
            { role: 'assistant', content: 'x' },
            { role: 'user', content: 'Keyed question' },
          ],
        },
        { headers: { 'Idempotency-Key': key } },
      )
      .withResponse();
    expect(other.data.id).not.toBe(first.data.id);
    expect(other.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it("tells the client not to run a failed run again: one run, and the client's typed 502", async () => {
    const retrying = new OpenAI({ apiKey: api.adminKey, baseURL: `${api.url}/v1/openai`, maxRetries: 2 });
    const failed = (await retrying.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'Please [refuse]' }] })
      .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect(failed.status).toBe(502);
    expect(failed.code).toBe('model_error');
    expect(failed.headers?.get('x-should-retry')).toBe('false');
    const runs = (await api.call('GET', `/v1/combo/agents/${agentId}/completions?page_size=100`, { key: api.adminKey })).json.data.items;
    expect(runs.filter((r: { question: string }) => r.question === 'Please [refuse]')).toHaveLength(1);
  });

  it('takes a conversation begun elsewhere into a new session, its system message and earlier turns included', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: agentId,
        messages: [
          { role: 'system', content: 'Reply in English.' },
          { role: 'user', content: [{ type: 'text', text: 'Earlier question' }] },
          { role: 'assistant', content: 'Earlier answer from another model' },
          { role: 'user', content: 'Follow-up question' },
        ],
      })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe(answerTo('Follow-up question'));
    expect(conversationOf(chatRequests(model).at(-1)!)).toEqual([
      { role: 'system', content: 'Reply in English.' },
      { role: 'user', content: 'Earlier question' },
      { role: 'assistant', content: 'Earlier answer from another model' },
      { role: 'user', content: 'Follow-up question' },
    ]);
    const sessionId = response.headers.get('x-combo-session-id')!;
    const messages = (await api.call('GET', `/v1/combo/sessions/${sessionId}/messages`, { key: api.adminKey })).json.data.items;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
  });

  it("binds a call to a session named in X-Combo-Session-Id, whose history the model reads instead of the caller's", async () => {
    const sessionId = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data
      .session_id as string;
    const bound = new OpenAI({
      apiKey: api.adminKey,
      baseURL: `${api.url}/v1/openai`,
      maxRetries: 0,
      defaultHeaders: { 'X-Combo-Session-Id': sessionId },
    });
    await bound.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'First on the session' }] });
    const { response } = await bound.chat.completions
      .create({
        model: agentId,
        messages: [
          { role: 'user', content: 'A history the session never had' },
          { role: 'assistant', content: 'Never said' },
          { role: 'user', content: 'Second on the session' },
        ],
      })
      .withResponse();
    expect(response.headers.get('x-combo-session-id')).toBe(sessionId);
    expect(conversationOf(chatRequests(model).at(-1)!)).toEqual([
      { role: 'user', content: 'First on the session' },
      { role: 'assistant', content: answerTo('First on the session') },
      { role: 'user', content: 'Second on the session' },
    ]);
    const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key: api.adminKey })).json.data.items;
    expect(runs).toHaveLength(2);

    // Another agent's session, or none at all: not found, in OpenAI's body.
    const unknown = new OpenAI({
      apiKey: api.adminKey,
      baseURL: `${api.url}/v1/openai`,
      maxRetries: 0,
      defaultHeaders: { 'X-Combo-Session-Id': 'ses_nosuchsession' },
    });
    const err = await unknown.chat.completions
      .create({ model: agentId, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("raises the client's typed errors: unknown model, refused tools, a non-user last message, bad credentials", async () => {
    const ask = (body: Record<string, unknown>, c: OpenAI = client) =>
      c.chat.completions.create({ model: agentId, messages: [{ role: 'user', content: 'Hi' }], ...body } as never).catch((e: unknown) => e);

    const unknownModel = (await ask({ model: 'agt_nosuchagent' })) as InstanceType<typeof OpenAI.APIError>;
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknownModel.code).toBe('model_not_found');
    expect(unknownModel.type).toBe('invalid_request_error');

    const tools = (await ask({
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
    })) as InstanceType<typeof OpenAI.APIError>;
    expect(tools).toBeInstanceOf(OpenAI.BadRequestError);
    expect(tools.param).toBe('tools');
    expect(tools.message).toMatch(/caller-sent tools are not supported/);

    const lastNotUser = (await ask({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
    })) as InstanceType<typeof OpenAI.APIError>;
    expect(lastNotUser).toBeInstanceOf(OpenAI.BadRequestError);
    expect(lastNotUser.param).toBe('messages.1.role');

    const badKey = await ask({}, new OpenAI({ apiKey: 'combo_wrong_key', baseURL: `${api.url}/v1/openai`, maxRetries: 0 }));
    expect(badKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((badKey as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
  });

  it('runs an agent step after a tool call in the stream: the new step follows on a new paragraph, the whole content is the last step', async () => {
    const toolAgent = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Tooled', tools: ['current_time'] } }))
      .json.data.agent_id as string;
    let step = 0;
    const previous = model.reply;
    model.reply = (request) => {
      const body = request.body as WireChatRequest;
      step += 1;
      if (step === 1) {
        // A first step that says something before its tool call.
        const call = chatToolCall([{ name: 'current_time', args: {} }]) as { choices: [{ message: Record<string, unknown> }] };
        call.choices[0].message.content = 'Let me check.';
        return { body: call };
      }
      return body.stream ? { stream: streamedAnswer('It is now.', { pieces: 2 }) } : { body: chatAnswer('It is now.') };
    };
    try {
      const stream = await client.chat.completions.create({
        model: toolAgent,
        messages: [{ role: 'user', content: 'Time?' }],
        stream: true,
      });
      let text = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(text).toBe('Let me check.\n\nIt is now.');
      expect(finish).toBe('stop');
      // The next turn sends the answer back as it was streamed: the same session goes on.
      step = 0;
      const firstTurn = await client.chat.completions
        .create({ model: toolAgent, messages: [{ role: 'user', content: 'Time, streamed?' }], stream: true })
        .withResponse();
      let streamed = '';
      for await (const chunk of firstTurn.data) streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe('Let me check.\n\nIt is now.');
      step = 1;
      const next = await client.chat.completions
        .create({
          model: toolAgent,
          messages: [
            { role: 'user', content: 'Time, streamed?' },
            { role: 'assistant', content: streamed },
            { role: 'user', content: 'Thanks' },
          ],
        })
        .withResponse();
      expect(next.response.headers.get('x-combo-session-id')).toBe(firstTurn.response.headers.get('x-combo-session-id'));
      // Whole, the content is the last step's answer.
      step = 0;
      const whole = await client.chat.completions.create({ model: toolAgent, messages: [{ role: 'user', content: 'Time again?' }] });
      expect(whole.choices[0]!.message.content).toBe('It is now.');
    } finally {
      model.reply = previous;
    }
  });
});

describe('OpenAI-compatible API: the completions rate family', () => {
  let api: TestApi;
  const model = new ScriptedUpstream();

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = () => ({ body: chatAnswer('ok') });
    api = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_COMPLETIONS_PER_MIN: '1' });
  });
  afterAll(async () => {
    await api?.close();
    await model.stop();
  });

  it('counts chat completions in the completions family: the second in a minute is RateLimitError with Retry-After', async () => {
    const client = new OpenAI({ apiKey: api.adminKey, baseURL: `${api.url}/v1/openai`, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: 'agt_nosuchagent', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    // The first counts (and fails on its model); the second is refused before it runs.
    expect(await ask()).toBeInstanceOf(OpenAI.NotFoundError);
    const limited = (await ask()) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited.code).toBe('rate_limit_exceeded');
    expect(Number(limited.headers?.get('retry-after'))).toBeGreaterThan(0);
    // The default family is another ceiling: listing models still works.
    expect((await client.models.list()).data).toEqual([]);
  });
});
