/**
 * Builders that script an OpenAI-compatible chat model on a ScriptedUpstream. Each builder returns
 * what goes into a ScriptedReply: `body` for plain answers, `stream` (the SSE frames) for streamed ones,
 * so status, delays and connection drops stay on the reply:
 *
 *   upstream.reply = inSequence(
 *     { body: chatToolCall([{ id: 'call_1', name: 'search', args: { query: 'refunds' } }]) },
 *     { stream: streamedAnswer('Refunds take five days.', { pieces: 4 }), chunkDelayMs: 20 },
 *     { status: 503, body: chatError('overloaded') },
 *     { stream: streamedAnswer('never finished'), dropAfter: 2 },
 *   );
 *   ...
 *   expect(chatRequests(upstream)[1]!.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
 *
 * Usage: every answer reports DEFAULT_USAGE unless given `{ prompt_tokens, completion_tokens }`
 * (total defaults to their sum), or `null` for none (the client then estimates it).
 */
import type { RecordedRequest, ScriptedReply, ScriptedUpstream } from './scripted-upstream';

/** Usage in the provider's wire form. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What every builder reports unless told otherwise: fixed, so tests can assert exact token counts. */
export const DEFAULT_USAGE: WireUsage = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };

/** The model that answers unless told otherwise. */
const SCRIPTED_MODEL = 'scripted-model';

export interface ScriptedToolCall {
  /** Defaults to `call_<position>`. */
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as it is (to script malformed arguments). */
  args: object | string;
}

/** `{ prompt_tokens, completion_tokens }` (total is their sum unless given); null: the provider reports none. */
export type ScriptedUsage = Partial<WireUsage> | null;

export interface AnswerOptions {
  model?: string;
  /** Defaults to `stop` for answers and `tool_calls` for tool calls. */
  finishReason?: string;
}

export interface StreamOptions extends AnswerOptions {
  /**
   * How the text (or each call's arguments) is cut into frames: a number of near-equal pieces, or
   * the pieces themselves (they must join back to the text). Defaults to 3.
   */
  pieces?: number | string[];
  usage?: ScriptedUsage;
}

/** The request a client sent to `/chat/completions`, in OpenAI's wire form. */
export interface WireChatRequest {
  model: string;
  messages: Array<{
    role: 'system' | 'user' | 'assistant' | 'tool';
    content: string | null;
    tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
  temperature?: number;
  max_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  response_format?: { type: 'json_schema'; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
}

const CREATED = 1_700_000_000;

function wireUsage(usage: ScriptedUsage | undefined): WireUsage | undefined {
  if (usage === null) return undefined;
  const { prompt_tokens = DEFAULT_USAGE.prompt_tokens, completion_tokens = DEFAULT_USAGE.completion_tokens } = usage ?? {};
  return { prompt_tokens, completion_tokens, total_tokens: usage?.total_tokens ?? prompt_tokens + completion_tokens };
}

const argumentsOf = (call: ScriptedToolCall) => (typeof call.args === 'string' ? call.args : JSON.stringify(call.args));
const idOf = (call: ScriptedToolCall, position: number) => call.id ?? `call_${position}`;

function completion(message: object, finishReason: string, usage: ScriptedUsage | undefined, options: AnswerOptions): object {
  const wire = wireUsage(usage);
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: CREATED,
    model: options.model ?? SCRIPTED_MODEL,
    choices: [{ index: 0, message, finish_reason: finishReason }],
    ...(wire ? { usage: wire } : {}),
  };
}

/** The body of a plain (non-streamed) text answer. */
export function chatAnswer(text: string, usage?: ScriptedUsage, options: AnswerOptions = {}): object {
  return completion({ role: 'assistant', content: text }, options.finishReason ?? 'stop', usage, options);
}

/** The body of a plain (non-streamed) answer that calls tools (several calls: parallel tool calls). */
export function chatToolCall(calls: ScriptedToolCall[], usage?: ScriptedUsage, options: AnswerOptions = {}): object {
  const toolCalls = calls.map((call, i) => ({
    id: idOf(call, i),
    type: 'function',
    function: { name: call.name, arguments: argumentsOf(call) },
  }));
  return completion({ role: 'assistant', content: null, tool_calls: toolCalls }, options.finishReason ?? 'tool_calls', usage, options);
}

/** `text` cut as `pieces` says; the pieces join back to `text`. */
export function splitText(text: string, pieces: number | string[] = 3): string[] {
  if (Array.isArray(pieces)) {
    if (pieces.join('') !== text) throw new Error('scripted pieces do not join back to the text');
    return pieces;
  }
  const characters = Array.from(text); // whole code points: a frame never holds half a surrogate pair
  const count = Math.max(1, Math.min(pieces, characters.length));
  const size = Math.ceil(characters.length / count);
  const out: string[] = [];
  for (let start = 0; start < characters.length; start += size) out.push(characters.slice(start, start + size).join(''));
  return out.length > 0 ? out : [''];
}

/** One `chat.completion.chunk` frame. */
export function chunkFrame(delta: object, options: { finishReason?: string | null; model?: string } = {}): object {
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: options.model ?? SCRIPTED_MODEL,
    choices: [{ index: 0, delta, finish_reason: options.finishReason ?? null }],
  };
}

/** The frames every stream ends with: the finish reason, the usage chunk (choices: []) and [DONE]. */
function streamEnd(finishReason: string, options: StreamOptions): Array<string | object> {
  const usage = wireUsage(options.usage);
  const model = options.model ?? SCRIPTED_MODEL;
  return [
    chunkFrame({}, { finishReason, model }),
    ...(usage ? [{ id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: CREATED, model, choices: [], usage }] : []),
    '[DONE]',
  ];
}

/**
 * The frames of a streamed text answer the way OpenAI sends it: a role frame, one frame per piece
 * of text, a finish frame, a usage frame (unless `usage: null`) and `[DONE]`.
 */
export function streamedAnswer(text: string, options: StreamOptions = {}): Array<string | object> {
  const model = options.model ?? SCRIPTED_MODEL;
  return [
    chunkFrame({ role: 'assistant', content: '' }, { model }),
    ...splitText(text, options.pieces).map((content) => chunkFrame({ content }, { model })),
    ...streamEnd(options.finishReason ?? 'stop', options),
  ];
}

/**
 * The frames of streamed tool calls the way OpenAI sends them: per call, a frame with its index, id and name and
 * empty arguments, then the arguments in `pieces` fragments (calls one after the other); then the
 * finish frame (`tool_calls`), usage and `[DONE]`.
 */
export function streamedToolCall(calls: ScriptedToolCall[], options: StreamOptions = {}): Array<string | object> {
  const model = options.model ?? SCRIPTED_MODEL;
  const frames: Array<string | object> = [chunkFrame({ role: 'assistant', content: null }, { model })];
  calls.forEach((call, index) => {
    const head = { index, id: idOf(call, index), type: 'function', function: { name: call.name, arguments: '' } };
    frames.push(chunkFrame({ tool_calls: [head] }, { model }));
    for (const fragment of splitText(argumentsOf(call), options.pieces)) {
      frames.push(chunkFrame({ tool_calls: [{ index, function: { arguments: fragment } }] }, { model }));
    }
  });
  return [...frames, ...streamEnd(options.finishReason ?? 'tool_calls', options)];
}

/** An error body in OpenAI's shape, `{ error: { message, type, code } }`: use with a status. */
export function chatError(message: string, type = 'server_error'): object {
  return { error: { message, type, code: null } };
}

type ReplyFn = (request: RecordedRequest) => ScriptedReply;

/**
 * Replies in turn, one per request (a reply may itself be a function of the request). Once they are
 * used up, every further request gets a 400 saying so: not retryable, so a test fails fast instead
 * of waiting out retries.
 */
export function inSequence(...replies: Array<ScriptedReply | ReplyFn>): ReplyFn {
  let next = 0;
  return (request) => {
    const reply = replies[next++];
    if (reply === undefined) {
      return {
        status: 400,
        body: chatError(`scripted upstream: no reply left for request ${next} (${replies.length} scripted)`, 'invalid_request_error'),
      };
    }
    return typeof reply === 'function' ? reply(request) : reply;
  };
}

/** The bodies of the chat-completion requests the upstream received, oldest first. */
export function chatRequests(upstream: ScriptedUpstream): WireChatRequest[] {
  return upstream.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body as WireChatRequest);
}

/**
 * Makes `upstream` answer with a script a test replaces as it goes: the replies in order, the last
 * one repeating. The returned function sets the script and forgets the requests seen so far.
 */
export function scriptedReplies(upstream: ScriptedUpstream): (...replies: ScriptedReply[]) => void {
  let script: ScriptedReply[] = [];
  upstream.reply = () => (script.length > 1 ? script.shift()! : (script[0] ?? { status: 500, body: { error: 'nothing scripted' } }));
  return (...replies) => {
    script = replies;
    upstream.requests.length = 0;
  };
}
