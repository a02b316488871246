import { type ChatMessage, ChatModelError, type ChatRequest } from '../../common/chat-model';
import type { ModelProviderKind, ProviderConnection } from '../../common/model-provider';
import { createModelChatClient } from '../../upstream/models/model-chat';
import { createModelChats } from '../../upstream/models/model-chats';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatAnswer, chatError } from '../support/scripted-chat';
import { anthropicError, anthropicMessage, anthropicStream, geminiAnswer, geminiError, geminiStream } from '../support/scripted-providers';
import { ScriptedUpstream } from '../support/scripted-upstream';

const KEY = 'provider-key-0123456789SECRET';
const weather = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
// A conversation with a tool round: each provider's own form of a call and its result is checked.
const withToolRound: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
  { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"sunny"}' },
];

async function failure(promise: Promise<unknown>): Promise<ChatModelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChatModelError);
  expect((err as Error).message).not.toContain(KEY);
  return err as ChatModelError;
}

describe('model providers on their own wire formats', () => {
  const upstream = new ScriptedUpstream();
  let baseUrl: string;
  const connection = (kind: ModelProviderKind, headers: Record<string, string> = {}): ProviderConnection => ({
    providerId: 'mp_test',
    kind,
    baseUrl,
    apiKey: KEY,
    headers,
    models: [],
  });
  const client = (kind: ModelProviderKind, headers?: Record<string, string>) =>
    createModelChatClient({ connection: connection(kind, headers), timeoutMs: 30_000 });
  beforeAll(async () => {
    baseUrl = await upstream.start();
  });
  afterAll(() => upstream.stop());
  beforeEach(() => upstream.requests.splice(0));

  describe('anthropic (Messages API)', () => {
    it('sends the system prompt apart, the tool round as tool_use and tool_result blocks, and the key as x-api-key', async () => {
      upstream.reply = () => ({ body: anthropicMessage('Sunny in Paris.') });
      const request: ChatRequest = { model: 'claude-test', messages: withToolRound, tools: [weather], temperature: 0.3, maxTokens: 200 };
      const result = await client('anthropic', { 'anthropic-beta': 'scripted' }).complete(request, { stream: false });

      expect(result).toEqual({
        content: 'Sunny in Paris.',
        toolCalls: [],
        usage: { promptTokens: 21, completionTokens: 6, totalTokens: 27, estimated: false },
        finishReason: 'stop',
        model: 'claude-scripted',
      });
      const [sent] = upstream.requests;
      expect(sent).toMatchObject({ method: 'POST', path: '/v1/messages' });
      expect(sent!.headers['x-api-key']).toBe(KEY);
      expect(sent!.headers['anthropic-beta']).toContain('scripted');
      expect(sent!.body).toMatchObject({
        model: 'claude-test',
        system: [{ type: 'text', text: 'You are terse.' }],
        max_tokens: 200,
        tools: [{ name: 'get_weather', description: weather.description, input_schema: weather.parameters }],
      });
      const messages = (sent!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> }).messages;
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(messages[1]!.content).toEqual([
        expect.objectContaining({ type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Paris' } }),
      ]);
      expect(messages[2]!.content).toEqual([
        expect.objectContaining({ type: 'tool_result', tool_use_id: 'call_a', content: '{"sky":"sunny"}' }),
      ]);
    });

    it('returns tool calls, and streams text as it grows', async () => {
      upstream.reply = () => ({ body: anthropicMessage('', [{ id: 'toolu_1', name: 'get_weather', args: { city: 'Oslo' } }]) });
      const asked = await client('anthropic').complete(
        { model: 'claude-test', messages: withToolRound.slice(0, 2), tools: [weather] },
        { stream: false },
      );
      expect(asked.toolCalls).toEqual([{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
      expect(asked.finishReason).toBe('tool_calls');

      upstream.reply = () => ({ stream: anthropicStream(['Sun', 'ny and ', 'warm.']), chunkDelayMs: 2 });
      const seen: string[] = [];
      const streamed = await client('anthropic').complete(
        { model: 'claude-test', messages: withToolRound.slice(0, 2) },
        { stream: true, onText: (t) => seen.push(t) },
      );
      expect(seen).toEqual(['Sun', 'Sunny and ', 'Sunny and warm.']);
      expect(streamed).toMatchObject({
        content: 'Sunny and warm.',
        finishReason: 'stop',
        usage: { promptTokens: 21, completionTokens: 6 },
      });
      expect(upstream.requests[1]!.body).toMatchObject({ stream: true });
    });

    it('assembles a streamed tool call from its input fragments', async () => {
      upstream.reply = () => ({
        stream: anthropicStream(['Checking. '], [{ id: 'toolu_2', name: 'get_weather', args: { city: 'Lima' } }]),
      });
      const result = await client('anthropic').complete(
        { model: 'claude-test', messages: withToolRound.slice(0, 2), tools: [weather] },
        { stream: true },
      );
      expect(result).toMatchObject({
        content: 'Checking. ',
        toolCalls: [{ id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Lima"}' }],
        finishReason: 'tool_calls',
      });
    });

    it('sends a call whose arguments were cut off as an empty object, which the API takes, instead of the broken text', async () => {
      upstream.reply = () => ({ body: anthropicMessage('Let me retry.') });
      const cutOff: ChatMessage[] = [
        ...withToolRound.slice(0, 2),
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_b', name: 'get_weather', arguments: '{"city": "Ber' }] },
        { role: 'tool', tool_call_id: 'call_b', content: 'error: the arguments are not JSON' },
      ];
      await client('anthropic').complete({ model: 'claude-test', messages: cutOff, tools: [weather] }, { stream: false });
      const messages = (upstream.requests[0]!.body as { messages: Array<{ content: Array<Record<string, unknown>> }> }).messages;
      expect(messages[1]!.content).toEqual([expect.objectContaining({ type: 'tool_use', id: 'call_b', input: {} })]);
    });

    it('treats overloaded (529) as retryable and a bad request (400) as final, with the provider message', async () => {
      upstream.reply = () => ({ status: 529, body: anthropicError('overloaded_error', 'Overloaded') });
      const overloaded = await failure(
        client('anthropic').complete({ model: 'claude-test', messages: withToolRound.slice(0, 2) }, { stream: true }),
      );
      expect(overloaded).toMatchObject({ retryable: true, status: 529 });
      expect(overloaded.message).toMatch(/answered HTTP 529: Overloaded/);

      upstream.reply = () => ({ status: 400, body: anthropicError('invalid_request_error', 'max_tokens: must be positive') });
      const bad = await failure(
        client('anthropic').complete({ model: 'claude-test', messages: withToolRound.slice(0, 2) }, { stream: false }),
      );
      expect(bad).toMatchObject({ retryable: false, status: 400 });
      expect(bad.message).toContain('max_tokens: must be positive');
    });
  });

  describe('google (Gemini API)', () => {
    it('sends the instructions as systemInstruction, the tool round as functionCall and functionResponse parts, and the key as a header', async () => {
      upstream.reply = () => ({ body: geminiAnswer('Sunny.') });
      const result = await client('google').complete(
        { model: 'gemini-test', messages: withToolRound, tools: [weather], maxTokens: 50 },
        { stream: false },
      );
      expect(result).toEqual({
        content: 'Sunny.',
        toolCalls: [],
        usage: { promptTokens: 17, completionTokens: 4, totalTokens: 21, estimated: false },
        finishReason: 'stop',
        model: 'gemini-test',
      });
      const [sent] = upstream.requests;
      expect(sent).toMatchObject({ method: 'POST', path: '/v1/models/gemini-test:generateContent' });
      expect(sent!.headers['x-goog-api-key']).toBe(KEY);
      const body = sent!.body as {
        systemInstruction: unknown;
        contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
        generationConfig: unknown;
      };
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }] });
      expect(body.generationConfig).toMatchObject({ maxOutputTokens: 50 });
      expect(body.contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
      expect(body.contents[1]!.parts).toEqual([
        expect.objectContaining({ functionCall: expect.objectContaining({ name: 'get_weather', args: { city: 'Paris' } }) }),
      ]);
      expect(body.contents[2]!.parts).toEqual([
        expect.objectContaining({ functionResponse: expect.objectContaining({ name: 'get_weather' }) }),
      ]);
    });

    it('returns function calls as tool calls, and streams text as it grows', async () => {
      upstream.reply = () => ({ body: geminiAnswer('', [{ id: 'unused', name: 'get_weather', args: { city: 'Rome' } }]) });
      const asked = await client('google').complete(
        { model: 'gemini-test', messages: withToolRound.slice(0, 2), tools: [weather] },
        { stream: false },
      );
      expect(asked.toolCalls).toEqual([expect.objectContaining({ name: 'get_weather', arguments: '{"city":"Rome"}' })]);
      expect(asked.toolCalls[0]!.id).not.toBe('');
      expect(asked.finishReason).toBe('tool_calls');

      upstream.reply = () => ({ stream: geminiStream(['It is ', 'sunny ', 'in Rome.']), chunkDelayMs: 2 });
      const seen: string[] = [];
      const streamed = await client('google').complete(
        { model: 'gemini-test', messages: withToolRound.slice(0, 2) },
        { stream: true, onText: (t) => seen.push(t) },
      );
      expect(seen).toEqual(['It is ', 'It is sunny ', 'It is sunny in Rome.']);
      expect(streamed).toMatchObject({
        content: 'It is sunny in Rome.',
        finishReason: 'stop',
        usage: { promptTokens: 17, completionTokens: 4 },
      });
      expect(upstream.requests[1]!.path).toBe('/v1/models/gemini-test:streamGenerateContent?alt=sse');
    });

    it('sends a system message posted in the middle of a conversation as a user message (Gemini takes them only at the start)', async () => {
      upstream.reply = () => ({ body: geminiAnswer('Noted.') });
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello.' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'system', content: 'From now on answer in French.' },
        { role: 'user', content: 'How are you?' },
      ];
      await client('google').complete({ model: 'gemini-test', messages }, { stream: false });
      const body = upstream.requests[0]!.body as {
        systemInstruction: unknown;
        contents: Array<{ role: string; parts: Array<{ text?: string }> }>;
      };
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }] });
      expect(body.contents.map((c) => c.role)).toEqual(['user', 'model', 'user', 'user']);
      expect(body.contents[2]!.parts).toEqual([{ text: 'System: From now on answer in French.' }]);
    });

    it('treats RESOURCE_EXHAUSTED (429) as retryable and a bad key (400) as final', async () => {
      upstream.reply = () => ({ status: 429, body: geminiError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for gemini-test') });
      const limited = await failure(
        client('google').complete({ model: 'gemini-test', messages: withToolRound.slice(0, 2) }, { stream: false }),
      );
      expect(limited).toMatchObject({ retryable: true, status: 429 });
      expect(limited.message).toContain('Quota exceeded for gemini-test');

      upstream.reply = () => ({ status: 400, body: geminiError(400, 'INVALID_ARGUMENT', `API key not valid: ${KEY}`) });
      const bad = await failure(
        client('google').complete({ model: 'gemini-test', messages: withToolRound.slice(0, 2) }, { stream: false }),
      );
      expect(bad).toMatchObject({ retryable: false, status: 400 });
    });
  });

  describe('openai (chat completions)', () => {
    it('speaks chat completions with the key as Bearer, not the Responses API', async () => {
      upstream.reply = () => ({ body: chatAnswer('Hello.') });
      const result = await client('openai', { 'OpenAI-Organization': 'org-scripted' }).complete(
        { model: 'gpt-test', messages: withToolRound.slice(0, 2) },
        { stream: false },
      );
      expect(result.content).toBe('Hello.');
      expect(upstream.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
      expect(upstream.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
      expect(upstream.requests[0]!.headers['openai-organization']).toBe('org-scripted');
    });
  });

  describe('tenant providers', () => {
    it('refuse a private address unless the operator allows it, before anything is sent', async () => {
      const chats = (allowed: boolean) =>
        createModelChats({
          defaultConnection: null,
          connectionOf: async () => connection('openai-compatible'),
          timeoutMs: 5_000,
          allowsPrivate: () => allowed,
        });
      upstream.reply = () => ({ body: chatAnswer('reached') });
      const refused = await failure(
        (await chats(false).forProvider('t1', 'mp_test'))!.client.complete(
          { model: 'm', messages: withToolRound.slice(0, 2) },
          { stream: false },
        ),
      );
      expect(refused.retryable).toBe(false);
      expect(refused.message).toMatch(/not allowed/);
      expect(upstream.requests).toHaveLength(0);

      const allowed = await (await chats(true).forProvider('t1', 'mp_test'))!.client.complete(
        { model: 'm', messages: withToolRound.slice(0, 2) },
        { stream: false },
      );
      expect(allowed.content).toBe('reached');
    });

    it('follow no redirect: a 3xx is the provider’s final answer, and the target is never called', async () => {
      const target = new ScriptedUpstream();
      const targetUrl = await target.start();
      const redirecting = createServer((_req, res) => res.writeHead(307, { location: `${targetUrl}/chat/completions` }).end());
      await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
      try {
        const chats = createModelChats({
          defaultConnection: null,
          connectionOf: async () => ({
            ...connection('openai-compatible', { 'X-Gateway-Token': 'gateway-token-0123456789' }),
            baseUrl: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`,
          }),
          timeoutMs: 5_000,
          allowsPrivate: () => true,
        });
        target.reply = () => ({ body: chatAnswer('should not be reached') });
        const err = await failure(
          (await chats.forProvider('t1', 'mp_test'))!.client.complete(
            { model: 'm', messages: withToolRound.slice(0, 2) },
            { stream: false },
          ),
        );
        expect(err).toMatchObject({ retryable: false, status: 307 });
        expect(target.requests).toHaveLength(0);
      } finally {
        redirecting.close();
        await target.stop();
      }
    });

    it('never repeat a credential header the provider quotes back, and estimate usage reported as zeros', async () => {
      const token = 'gateway-token-0123456789abcdef';
      upstream.reply = () => ({ status: 401, body: chatError(`bad gateway token ${token}`, 'invalid_request_error') });
      const err = await failure(
        client('openai-compatible', { 'X-Gateway-Token': token }).complete(
          { model: 'm', messages: withToolRound.slice(0, 2) },
          { stream: false },
        ),
      );
      expect(err.message).toContain('bad gateway token [redacted]');
      expect(err.message).not.toContain(token);

      upstream.reply = () => ({ body: chatAnswer('Counted locally.', { prompt_tokens: 0, completion_tokens: 0 }) });
      const { usage } = await client('openai-compatible').complete({ model: 'm', messages: withToolRound.slice(0, 2) }, { stream: false });
      expect(usage.estimated).toBe(true);
      expect(usage.promptTokens).toBeGreaterThan(0);
    });

    it('read a provider once within the cache time, and again after a failed read', async () => {
      let reads = 0;
      let fail = true;
      const chats = createModelChats({
        defaultConnection: null,
        connectionOf: async () => {
          reads++;
          if (fail) throw new Error('store unavailable');
          return connection('openai-compatible');
        },
        timeoutMs: 5_000,
        allowsPrivate: () => true,
        cacheMs: 60_000,
      });
      await expect(chats.forProvider('t1', 'mp_test')).rejects.toThrow('store unavailable');
      fail = false;
      await chats.forProvider('t1', 'mp_test');
      await chats.forProvider('t1', 'mp_test');
      expect(reads).toBe(2);
      expect(await chats.forProvider('t1', undefined)).toBeNull();
    });
  });
});
