import { type ChatMessage, ChatModelError, type ChatRequest } from '../../common/chat-model';
import type { ModelProviderKind, ProviderConnection } from '../../common/model-provider';
import { createModelChatClient } from '../../upstream/models/model-chat';
import { createModelChats } from '../../upstream/models/model-chats';
import { chatAnswer } from '../support/scripted-chat';
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
