/**
 * A ChatModelClient for any server speaking OpenAI's `POST /chat/completions` (OpenAI, Ollama, vLLM,
 * LM Studio, LiteLLM...), plain or streamed as server-sent events. Every failure becomes a
 * ChatModelError whose `retryable` tells the activity whether another attempt can help; messages
 * name the upstream's host and its own explanation, never the API key or the full URL.
 */
import type { ReadableStreamDefaultReader } from 'node:stream/web';
import { createParser } from 'eventsource-parser';
import { countTokens } from '../common/tokens';
import { errorText, hostOf, networkCode, redact, truncate, upstreamMessage } from './upstream-text';
import {
  type ChatCallOptions,
  type ChatMessage,
  type ChatModelClient,
  ChatModelError,
  type ChatRequest,
  type ChatResult,
  type TokenUsage,
  type ToolCall,
} from '../common/chat-model';

export interface OpenAiChatClientOptions {
  /** Up to and including the API version, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string;
  /** Bounds the whole call: connecting, waiting and reading the full (possibly streamed) answer. */
  timeoutMs: number;
  fetchImpl?: typeof fetch;
}

const MAX_UPSTREAM_MESSAGE = 300;

export function createOpenAiChatClient(options: OpenAiChatClientOptions): ChatModelClient {
  const { apiKey, timeoutMs } = options;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const host = hostOf(url);
  const who = `chat model upstream ${host ?? ''}`.trim();
  const safe = (message: string) => truncate(redact(message, apiKey), MAX_UPSTREAM_MESSAGE);

  return {
    async complete(request: ChatRequest, call: ChatCallOptions): Promise<ChatResult> {
      if (host === undefined) throw new ChatModelError('chat model upstream address is not a valid http(s) URL', false);
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;

      /** fetch's own failures: the caller's cancellation passes through as it is, the rest become ChatModelErrors. */
      const transport = async <T>(step: Promise<T>, whileDoing: 'connecting' | 'reading'): Promise<T> => {
        try {
          return await step;
        } catch (err) {
          if (call.signal?.aborted) throw call.signal.reason ?? err;
          if (timeout.aborted) throw new ChatModelError(`${who} did not answer within ${timeoutMs} ms`, true);
          const reason = whileDoing === 'connecting' ? 'could not be reached' : 'broke the connection while answering';
          throw new ChatModelError(`${who} ${reason} (${networkCode(err)})`, true);
        }
      };

      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: call.stream ? 'text/event-stream' : 'application/json',
      };
      if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
      const fetchImpl = options.fetchImpl ?? fetch;
      const response = await transport(
        fetchImpl(url, { method: 'POST', headers, body: JSON.stringify(wireRequest(request, call.stream)), signal }),
        'connecting',
      );

      if (!response.ok) {
        const text = await transport(response.text(), 'reading');
        // 429 and 5xx are the upstream's momentary trouble; other 4xx mean our request or key is wrong.
        const retryable = response.status === 429 || response.status >= 500;
        const detail = safe(upstreamMessage(text));
        throw new ChatModelError(`${who} answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`, retryable, response.status);
      }

      const fail = (what: string) => new ChatModelError(`${who} ${what}`, true, response.status);
      // Decided by what came back, not what was asked: some servers ignore `stream`, some always stream.
      const answer = (response.headers.get('content-type') ?? '').includes('text/event-stream')
        ? await readEventStream(response, transport, fail, safe, call.onText)
        : readCompletion(await transport(response.text(), 'reading'), fail, safe, call.onText);

      return {
        content: answer.content,
        toolCalls: answer.toolCalls,
        usage: answer.usage ?? estimateUsage(request, answer.content, answer.toolCalls),
        finishReason: answer.finishReason ?? (answer.toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        model: answer.model ?? request.model,
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The request on the wire

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

function wireMessage(message: ChatMessage): WireMessage {
  if (message.role !== 'assistant') return message;
  const wire: WireMessage = { role: 'assistant', content: message.content };
  // An empty tool_calls list is rejected by some servers: leave the field out instead.
  if (message.tool_calls?.length) {
    wire.tool_calls = message.tool_calls.map(({ id, name, arguments: args }) => ({
      id,
      type: 'function',
      function: { name, arguments: args },
    }));
  }
  return wire;
}

function wireRequest(request: ChatRequest, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model, messages: request.messages.map(wireMessage) };
  if (request.tools?.length) body['tools'] = wireTools(request);
  if (request.temperature !== undefined) body['temperature'] = request.temperature;
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  if (request.responseFormat) {
    body['response_format'] = {
      type: 'json_schema',
      json_schema: { name: request.responseFormat.name, strict: true, schema: request.responseFormat.schema },
    };
  }
  body['stream'] = stream;
  // Without it OpenAI sends no usage at all in streaming mode.
  if (stream) body['stream_options'] = { include_usage: true };
  return body;
}

const wireTools = (request: ChatRequest) =>
  (request.tools ?? []).map(({ name, description, parameters }) => ({ type: 'function', function: { name, description, parameters } }));

// ---------------------------------------------------------------------------------------------
// The answer

interface Answer {
  content: string;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  finishReason?: string;
  model?: string;
}

type Transport = <T>(step: Promise<T>, whileDoing: 'connecting' | 'reading') => Promise<T>;
type Fail = (what: string) => ChatModelError;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOr = <T>(value: unknown, fallback: T): string | T => (typeof value === 'string' ? value : fallback);

/** A whole `chat.completion` object. */
function readCompletion(text: string, fail: Fail, safe: (m: string) => string, onText?: (t: string) => void): Answer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw fail('answered with a body that is not JSON');
  }
  if (isObject(body) && body['error'] !== undefined && body['error'] !== null)
    throw fail(`answered with an error: ${safe(errorText(body['error']))}`);
  const choice: unknown = isObject(body) && Array.isArray(body['choices']) ? body['choices'][0] : undefined;
  const message = isObject(choice) ? choice['message'] : undefined;
  if (!isObject(body) || !isObject(message)) throw fail('answered without a message in choices[0]');

  const rawCalls = message['tool_calls'] ?? [];
  if (!Array.isArray(rawCalls)) throw fail('answered with tool_calls that are not a list');
  const toolCalls = rawCalls.map((raw: unknown, index): ToolCall => {
    const fn = isObject(raw) ? raw['function'] : undefined;
    if (!isObject(raw) || !isObject(fn) || typeof fn['name'] !== 'string') throw fail(`answered with a tool call without a function name`);
    return { id: stringOr(raw['id'], `call_${index}`), name: fn['name'], arguments: argumentsText(fn['arguments']) };
  });
  const content = contentText(message['content']);
  if (content !== '') onText?.(content);
  return {
    content,
    toolCalls,
    usage: providerUsage(body['usage']),
    finishReason: stringOr(choice && isObject(choice) ? choice['finish_reason'] : undefined, undefined),
    model: stringOr(body['model'], undefined),
  };
}

/** A tool call being assembled from stream deltas. */
interface PartialCall {
  id?: string;
  name: string;
  arguments: string;
}

/** `chat.completion.chunk` events up to `data: [DONE]`. */
async function readEventStream(
  response: Response,
  transport: Transport,
  fail: Fail,
  safe: (m: string) => string,
  onText?: (t: string) => void,
): Promise<Answer> {
  if (!response.body) throw fail('answered with an empty stream');
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  // A multi-byte character may be split across network reads: the decoder keeps the partial bytes.
  const decoder = new TextDecoder('utf-8');
  const events: string[] = [];
  // Collected rather than handled in the callback, so a bad event's error is thrown from this function.
  const parser = createParser({ onEvent: (event) => events.push(event.data) });

  const answer: Answer = { content: '', toolCalls: [] };
  const calls: PartialCall[] = [];
  let sawDone = false;
  let finished = false;

  const applyToolDeltas = (deltas: unknown[]) => {
    deltas.forEach((delta, position) => {
      if (!isObject(delta)) return;
      const fn = isObject(delta['function']) ? delta['function'] : {};
      const id = stringOr(delta['id'], undefined);
      const call = (calls[slotOf(calls, delta['index'], id, position)] ??= { name: '', arguments: '' });
      call.id ??= id;
      const name = stringOr(fn['name'], '');
      // Most providers send the name once; some repeat it whole in every delta, a few split it.
      if (name !== '' && name !== call.name) call.name += name;
      const args = fn['arguments'];
      if (typeof args === 'string') call.arguments += args;
      else if (args !== undefined && args !== null) call.arguments = JSON.stringify(args);
    });
  };

  const applyChunk = (data: string) => {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw fail('sent a stream event that is not JSON');
    }
    if (!isObject(chunk)) throw fail('sent a stream event that is not a JSON object');
    if (chunk['error'] !== undefined && chunk['error'] !== null)
      throw fail(`reported an error mid-stream: ${safe(errorText(chunk['error']))}`);
    answer.model ??= stringOr(chunk['model'], undefined);
    answer.usage = providerUsage(chunk['usage']) ?? answer.usage;
    const choices = Array.isArray(chunk['choices']) ? chunk['choices'] : [];
    const choice: unknown = choices.find((c) => isObject(c) && (c['index'] ?? 0) === 0);
    if (!isObject(choice)) return;
    answer.finishReason = stringOr(choice['finish_reason'], answer.finishReason);
    const delta = isObject(choice['delta']) ? choice['delta'] : {};
    if (Array.isArray(delta['tool_calls'])) applyToolDeltas(delta['tool_calls']);
    const piece = contentText(delta['content']);
    if (piece !== '') {
      answer.content += piece;
      onText?.(answer.content);
    }
  };

  try {
    while (!sawDone) {
      const { value, done } = await transport(reader.read(), 'reading');
      parser.feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      for (const data of events.splice(0)) {
        if (data.trim() === '[DONE]') {
          sawDone = true;
          break;
        }
        applyChunk(data);
      }
      if (done) break;
    }
    finished = true;
  } finally {
    // Stop reading an answer that failed half-way (or whose [DONE] came before the body's end).
    if (!finished || sawDone) reader.cancel().catch(() => undefined);
  }
  // A clean end without [DONE] is accepted once the model said why it stopped.
  if (!sawDone && answer.finishReason === undefined) throw fail('ended the stream before the answer was complete');

  answer.toolCalls = calls
    .filter((call): call is PartialCall => call !== undefined)
    .map((call, index) => ({ id: call.id ?? `call_${index}`, name: call.name, arguments: call.arguments }));
  if (answer.toolCalls.some((call) => call.name === '')) throw fail('streamed a tool call without a function name');
  return answer;
}

/**
 * Where a tool-call delta belongs: its `index` when given. Without one (some providers omit it), the
 * delta's position in its list, unless that slot already holds a call with another id (then a new one).
 */
function slotOf(calls: PartialCall[], index: unknown, id: string | undefined, position: number): number {
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0) return index;
  const existing = calls[position];
  if (existing && id !== undefined && existing.id !== undefined && existing.id !== id) return calls.length;
  return position;
}

/** Plain text, or the text parts of a content-parts list; null and anything else is no text. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

/** The wire form is a JSON string; a few servers send the parsed object instead. */
function argumentsText(args: unknown): string {
  if (typeof args === 'string') return args;
  return args === undefined || args === null ? '' : JSON.stringify(args);
}

// ---------------------------------------------------------------------------------------------
// Usage

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

function providerUsage(raw: unknown): TokenUsage | undefined {
  if (!isObject(raw) || !isCount(raw['prompt_tokens']) || !isCount(raw['completion_tokens'])) return undefined;
  const promptTokens = raw['prompt_tokens'];
  const completionTokens = raw['completion_tokens'];
  const total = raw['total_tokens'];
  return { promptTokens, completionTokens, totalTokens: isCount(total) ? total : promptTokens + completionTokens, estimated: false };
}

/** OpenAI's chat format spends about this many tokens framing each message, and this many priming the reply. */
const TOKENS_PER_MESSAGE = 4;
const TOKENS_PER_REPLY = 3;

const callTokens = (calls: ToolCall[]) => calls.reduce((sum, call) => sum + countTokens(call.name) + countTokens(call.arguments), 0);

/**
 * cl100k_base counts of what was sent and received, for providers that report no usage: close for
 * OpenAI's models, a fair guess for others (their tokenizers differ).
 */
function estimateUsage(request: ChatRequest, content: string, toolCalls: ToolCall[]): TokenUsage {
  let promptTokens = TOKENS_PER_REPLY;
  for (const message of request.messages) {
    promptTokens += TOKENS_PER_MESSAGE + countTokens(message.content ?? '');
    if (message.role === 'assistant' && message.tool_calls) promptTokens += callTokens(message.tool_calls);
  }
  if (request.tools?.length) promptTokens += countTokens(JSON.stringify(wireTools(request)));
  const completionTokens = countTokens(content) + callTokens(toolCalls);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}
