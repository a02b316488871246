import { type ChatMessage, ChatModelError, type ChatRequest } from '../../common/chat-model';
import { createModelChatClient } from '../../upstream/models/model-chat';
import type { ProviderConnection } from '../../common/model-provider';
import { countTokens } from '../../common/tokens';
import {
  chatAnswer,
  chatError,
  chatRequests,
  chatToolCall,
  chunkFrame,
  DEFAULT_USAGE,
  inSequence,
  streamedAnswer,
  splitText,
  streamedToolCall,
} from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';

const API_KEY = 'sk-test-chat-0123456789abcdefSECRET';

/** The installation's default provider as the worker builds it from LLM_BASE_URL and LLM_API_KEY. */
const createOpenAiChatClient = ({ baseUrl, apiKey, timeoutMs }: { baseUrl: string; apiKey?: string; timeoutMs: number }) => {
  const connection: ProviderConnection = { providerId: null, kind: 'openai-compatible', baseUrl, apiKey, headers: {}, models: [] };
  return createModelChatClient({ connection, timeoutMs });
};

async function failure(promise: Promise<unknown>): Promise<ChatModelError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChatModelError);
  const chatError = err as ChatModelError;
  expect(chatError.message).not.toContain(API_KEY);
  expect(chatError.stack).not.toContain(API_KEY);
  return chatError;
}

const question: ChatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'How long do refunds take?' }] };

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('the OpenAI-compatible chat client', () => {
  const upstream = new ScriptedUpstream();
  let baseUrl: string;
  // Generous: these tests read answers, not time; a loaded machine (files run two at a time) is slow to stream them.
  const client = (timeoutMs = 60_000) => createOpenAiChatClient({ baseUrl, apiKey: API_KEY, timeoutMs });
  beforeAll(async () => {
    baseUrl = await upstream.start();
  });
  afterAll(() => upstream.stop());
  beforeEach(() => upstream.requests.splice(0));

  describe('without streaming', () => {
    it('returns the answer, finish reason, model and the provider usage', async () => {
      upstream.reply = () => ({
        body: chatAnswer('Refunds take five working days.', { prompt_tokens: 31, completion_tokens: 7 }, { model: 'gpt-test-2024' }),
      });
      const result = await client().complete(question, { stream: false });
      expect(result).toEqual({
        content: 'Refunds take five working days.',
        toolCalls: [],
        usage: { promptTokens: 31, completionTokens: 7, totalTokens: 38, estimated: false },
        finishReason: 'stop',
        model: 'gpt-test-2024',
      });
    });

    it('sends the model, wire-form messages with tool results, tools, temperature and max_tokens, with the key as Bearer', async () => {
      upstream.reply = () => ({ body: chatAnswer('It is sunny in Paris.') });
      const messages: ChatMessage[] = [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
        { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"sunny"}' },
        { role: 'assistant', content: 'Anything else?', tool_calls: [] },
      ];
      await createOpenAiChatClient({ baseUrl: `${baseUrl}/`, apiKey: API_KEY, timeoutMs: 5_000 }).complete(
        { model: 'gpt-test', messages, tools: [weatherTool], temperature: 0.2, maxTokens: 256 },
        { stream: false },
      );
      expect(upstream.requests).toHaveLength(1);
      const [sent] = upstream.requests;
      expect(sent).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
      expect(sent!.headers['authorization']).toBe(`Bearer ${API_KEY}`);
      expect(sent!.headers['content-type']).toBe('application/json');
      expect(sent!.body).toEqual({
        model: 'gpt-test',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_a', content: '{"sky":"sunny"}' },
          { role: 'assistant', content: 'Anything else?' },
        ],
        tools: [{ type: 'function', function: weatherTool }],
        tool_choice: 'auto',
        temperature: 0.2,
        max_tokens: 256,
      });
    });

    it('leaves out tools, temperature and max_tokens when unset, and sends no Authorization without a key', async () => {
      upstream.reply = () => ({ body: chatAnswer('ok') });
      await createOpenAiChatClient({ baseUrl, timeoutMs: 5_000 }).complete({ ...question, tools: [] }, { stream: false });
      expect(upstream.requests[0]!.headers['authorization']).toBeUndefined();
      expect(upstream.requests[0]!.body).toEqual({ model: 'gpt-test', messages: question.messages });
    });

    it('returns parallel tool calls with their ids, names and arguments text', async () => {
      upstream.reply = () => ({
        body: chatToolCall([
          { id: 'call_p', name: 'get_weather', args: { city: 'Paris' } },
          { id: 'call_b', name: 'get_weather', args: '{"city": "Berl' },
        ]),
      });
      const result = await client().complete({ ...question, tools: [weatherTool] }, { stream: false });
      expect(result.content).toBe('');
      expect(result.finishReason).toBe('tool_calls');
      expect(result.toolCalls).toEqual([
        { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city": "Berl' },
      ]);
    });

    it('estimates usage with the cl100k tokenizer when the provider reports none', async () => {
      const answer = 'Refunds take five working days, counted from the day the parcel arrives.';
      upstream.reply = () => ({ body: chatAnswer(answer, null) });
      const { usage } = await client().complete(question, { stream: false });
      expect(usage.estimated).toBe(true);
      expect(usage.completionTokens).toBe(countTokens(answer));
      // The question's own tokens plus the chat format's framing.
      expect(usage.promptTokens).toBeGreaterThan(countTokens(question.messages[0]!.content!));
      expect(usage.promptTokens).toBeLessThan(countTokens(question.messages[0]!.content!) + 12);
      expect(usage.totalTokens).toBe(usage.promptTokens + usage.completionTokens);
    });

    it('counts tool definitions and tool-call arguments in an estimate', async () => {
      upstream.reply = () => ({ body: chatToolCall([{ id: 'c', name: 'get_weather', args: { city: 'Paris' } }], null) });
      const bare = await client().complete(question, { stream: false });
      const withTools = await client().complete({ ...question, tools: [weatherTool] }, { stream: false });
      expect(withTools.usage.promptTokens - bare.usage.promptTokens).toBeGreaterThanOrEqual(
        countTokens(JSON.stringify(weatherTool.parameters)),
      );
      expect(bare.usage.completionTokens).toBe(countTokens('get_weather') + countTokens('{"city":"Paris"}'));
    });
  });

  describe('streaming', () => {
    it('asks for usage in the stream and reports the text growing, ending with the whole answer', async () => {
      const pieces = ['Refunds ', 'take five ', 'working days', '.'];
      upstream.reply = () => ({
        stream: streamedAnswer(pieces.join(''), { pieces, usage: { prompt_tokens: 40, completion_tokens: 9 } }),
        chunkDelayMs: 5,
      });
      const seen: string[] = [];
      const result = await client().complete({ ...question, temperature: 0 }, { stream: true, onText: (text) => seen.push(text) });

      expect(upstream.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, temperature: 0 });
      expect(seen).toEqual(['Refunds ', 'Refunds take five ', 'Refunds take five working days', 'Refunds take five working days.']);
      expect(result).toEqual({
        content: 'Refunds take five working days.',
        toolCalls: [],
        usage: { promptTokens: 40, completionTokens: 9, totalTokens: 49, estimated: false },
        finishReason: 'stop',
        model: 'scripted-model',
      });
    });

    it('reassembles frames and multi-byte characters split at arbitrary byte boundaries', async () => {
      const text = 'Prix : 12 € — 退款需要五天 🎉, done.';
      for (const splitEveryBytes of [2, 5]) {
        upstream.reply = () => ({ stream: streamedAnswer(text, { pieces: 5 }), splitEveryBytes, chunkDelayMs: 1 });
        const seen: string[] = [];
        const result = await client().complete(question, { stream: true, onText: (t) => seen.push(t) });
        expect(result.content).toBe(text);
        expect(seen.at(-1)).toBe(text);
        for (const t of seen) expect(t).not.toContain('\uFFFD');
      }
    });

    it('estimates usage when the stream carries none', async () => {
      const text = 'A streamed answer without any usage chunk at the end.';
      upstream.reply = () => ({ stream: streamedAnswer(text, { usage: null }) });
      const { usage } = await client().complete(question, { stream: true });
      expect(usage.estimated).toBe(true);
      expect(usage.completionTokens).toBe(countTokens(text));
    });

    it('merges two parallel tool calls whose arguments arrive in fragments', async () => {
      upstream.reply = () => ({
        stream: streamedToolCall(
          [
            { id: 'call_p', name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
            { id: 'call_b', name: 'get_weather', args: { city: 'Berlin' } },
          ],
          { pieces: 4, usage: { prompt_tokens: 50, completion_tokens: 30 } },
        ),
      });
      const seen: string[] = [];
      const result = await client().complete({ ...question, tools: [weatherTool] }, { stream: true, onText: (t) => seen.push(t) });
      expect(result.toolCalls).toEqual([
        { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
        { id: 'call_b', name: 'get_weather', arguments: '{"city":"Berlin"}' },
      ]);
      expect(result.finishReason).toBe('tool_calls');
      expect(result.content).toBe('');
      expect(result.usage).toEqual({ promptTokens: 50, completionTokens: 30, totalTokens: 80, estimated: false });
      expect(seen).toEqual([]);
    });

    it('merges fragments by index when the calls are interleaved', async () => {
      const fragment = (index: number, args: string) => chunkFrame({ tool_calls: [{ index, function: { arguments: args } }] });
      upstream.reply = () => ({
        stream: [
          chunkFrame({ role: 'assistant', content: 'Checking both. ' }),
          chunkFrame({
            tool_calls: [
              { index: 0, id: 'call_x', type: 'function', function: { name: 'lookup', arguments: '' } },
              { index: 1, id: 'call_y', type: 'function', function: { name: 'fetch_page', arguments: '{"u' } },
            ],
          }),
          fragment(0, '{"q":'),
          fragment(1, 'rl":"https://ex'),
          fragment(0, '"refunds"}'),
          fragment(1, 'ample.com"}'),
          chunkFrame({}, { finishReason: 'tool_calls' }),
          '[DONE]',
        ],
      });
      const result = await client().complete(question, { stream: true });
      expect(result.content).toBe('Checking both. ');
      expect(result.toolCalls).toEqual([
        { id: 'call_x', name: 'lookup', arguments: '{"q":"refunds"}' },
        { id: 'call_y', name: 'fetch_page', arguments: '{"url":"https://example.com"}' },
      ]);
    });
  });

  describe('failures', () => {
    it('treats HTTP 500 as retryable, with the status and the provider message', async () => {
      upstream.reply = () => ({ status: 500, body: chatError('The server had an error while processing your request.') });
      const err = await failure(client().complete(question, { stream: false }));
      expect(err).toMatchObject({ retryable: true, status: 500 });
      expect(err.message).toMatch(
        /^chat model upstream 127\.0\.0\.1:\d+ answered HTTP 500: The server had an error while processing your request\.$/,
      );
    });

    it('treats HTTP 429 as retryable, also when streaming was asked for', async () => {
      upstream.reply = () => ({ status: 429, body: chatError('Rate limit reached for gpt-test', 'rate_limit_exceeded') });
      const err = await failure(client().complete(question, { stream: true }));
      expect(err).toMatchObject({ retryable: true, status: 429 });
      expect(err.message).toContain('Rate limit reached for gpt-test');
    });

    it('treats HTTP 400 as final, with the provider message cut to a readable length', async () => {
      upstream.reply = () => ({
        status: 400,
        body: chatError("Invalid schema for function 'get_weather': 'type' is required.", 'invalid_request_error'),
      });
      const err = await failure(client().complete(question, { stream: false }));
      expect(err).toMatchObject({ retryable: false, status: 400 });
      expect(err.message).toContain("Invalid schema for function 'get_weather'");

      upstream.reply = () => ({ status: 400, body: chatError(`context too long ${'x'.repeat(5_000)}`, 'invalid_request_error') });
      const long = await failure(client().complete(question, { stream: false }));
      expect(long.retryable).toBe(false);
      expect(long.message).toContain('context too long');
      expect(long.message.length).toBeLessThan(400);
    });

    it('never repeats the API key the provider quotes back', async () => {
      upstream.reply = () => ({
        status: 401,
        body: chatError(
          `Incorrect API key provided: ${API_KEY}. You can find your API key at https://platform.openai.com.`,
          'invalid_api_key',
        ),
      });
      const err = await failure(client().complete(question, { stream: false }));
      expect(err).toMatchObject({ retryable: false, status: 401 });
      expect(err.message).toMatch(/Incorrect API key provided: \[redacted\]/);
      expect(err.message).not.toContain('0123456789abcdef');
    });

    it('times out a slow answer as retryable', async () => {
      upstream.reply = () => ({ body: chatAnswer('late'), delayMs: 2_000 });
      const started = Date.now();
      const err = await failure(client(150).complete(question, { stream: false }));
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/did not answer within 150 ms/);
      expect(Date.now() - started).toBeLessThan(1_500);
    });

    it('times out a stream that stalls after it started, counting the whole call', async () => {
      upstream.reply = () => ({ stream: streamedAnswer('first then nothing', { pieces: 3 }), chunkDelayMs: 200 });
      const seen: string[] = [];
      const err = await failure(client(500).complete(question, { stream: true, onText: (t) => seen.push(t) }));
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/did not answer within 500 ms/);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.at(-1)).not.toBe('first then nothing');
    });

    it('treats a connection dropped mid-stream as retryable', async () => {
      upstream.reply = () => ({ stream: streamedAnswer('this answer never finishes', { pieces: 4 }), dropAfter: 3, chunkDelayMs: 5 });
      const seen: string[] = [];
      const err = await failure(client().complete(question, { stream: true, onText: (t) => seen.push(t) }));
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/broke the connection while answering/);
      // The role frame and two of the four pieces came through before the drop.
      expect(seen.at(-1)).toBe(splitText('this answer never finishes', 4).slice(0, 2).join(''));
    });

    it('treats a stream that ends cleanly before finishing as retryable', async () => {
      upstream.reply = () => ({ stream: [chunkFrame({ content: 'half an ans' })] });
      const err = await failure(client().complete(question, { stream: true }));
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/ended without a finish reason/);
    });

    it('treats malformed JSON as retryable, whole or in a stream frame', async () => {
      upstream.reply = () => ({ body: '{"choices": [{"message": ' });
      const whole = await failure(client().complete(question, { stream: false }));
      expect(whole).toMatchObject({ retryable: true, status: 200 });
      expect(whole.message).toMatch(/not JSON/);

      upstream.reply = () => ({ stream: [chunkFrame({ content: 'Hel' }), '{"choices": [', '[DONE]'] });
      const framed = await failure(client().complete(question, { stream: true }));
      expect(framed.retryable).toBe(true);
      expect(framed.message).toMatch(/stream event that is not JSON/);

      upstream.reply = () => ({ body: { object: 'chat.completion', choices: [] } });
      expect((await failure(client().complete(question, { stream: false }))).retryable).toBe(true);
    });

    it('treats an error object inside the stream as retryable, with its message', async () => {
      upstream.reply = () => ({
        stream: [chunkFrame({ content: 'Start' }), { error: { message: 'model overloaded, try again', type: 'server_error' } }],
      });
      const err = await failure(client().complete(question, { stream: true }));
      expect(err.retryable).toBe(true);
      expect(err.message).toContain('model overloaded, try again');
    });

    it('treats an unreachable server as retryable', async () => {
      const closed = new ScriptedUpstream();
      const closedUrl = await closed.start();
      await closed.stop();
      const err = await failure(
        createOpenAiChatClient({ baseUrl: closedUrl, apiKey: API_KEY, timeoutMs: 5_000 }).complete(question, { stream: false }),
      );
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/could not be reached \(ECONNREFUSED\)/);
    });

    it("passes the caller's cancellation through as it is", async () => {
      upstream.reply = () => ({ stream: streamedAnswer('slow answer', { pieces: 5 }), chunkDelayMs: 200 });
      const controller = new AbortController();
      const reason = new Error('activity cancelled');
      setTimeout(() => controller.abort(reason), 100);
      await expect(client().complete(question, { stream: true, signal: controller.signal })).rejects.toBe(reason);
    });
  });

  describe('the scripted chat builders', () => {
    it('answer in sequence and then refuse with a final error', async () => {
      upstream.reply = inSequence({ body: chatToolCall([{ name: 'lookup', args: { q: 'x' } }]) }, { stream: streamedAnswer('done') });
      const first = await client().complete(question, { stream: false });
      expect(first.toolCalls).toEqual([{ id: 'call_0', name: 'lookup', arguments: '{"q":"x"}' }]);
      expect(first.usage).toEqual({
        promptTokens: DEFAULT_USAGE.prompt_tokens,
        completionTokens: DEFAULT_USAGE.completion_tokens,
        totalTokens: DEFAULT_USAGE.total_tokens,
        estimated: false,
      });
      expect((await client().complete(question, { stream: true })).content).toBe('done');
      const spent = await failure(client().complete(question, { stream: false }));
      expect(spent).toMatchObject({ retryable: false, status: 400 });
      expect(spent.message).toMatch(/no reply left for request 3/);
      expect(chatRequests(upstream).map((r) => r.stream === true)).toEqual([false, true, false]);
    });
  });
});
