/**
 * A real OpenAI-compatible server streams when a request says `stream: true`, and answers whole
 * otherwise. Tests often script one form whatever the request asks; ScriptedUpstream sends the
 * scripted answer in the form the request asked for, as a real server would.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A body shaped like a whole chat completion, with one choice. */
export function isChatCompletion(body: unknown): body is Json & { choices: Json[] } {
  return isObject(body) && body['object'] === 'chat.completion' && Array.isArray(body['choices']) && isObject(body['choices'][0]);
}

export const asksForStream = (body: unknown): boolean => isObject(body) && body['stream'] === true;

/** The `chat.completion.chunk` frames of a whole completion: role, content, each tool call whole, finish, usage, [DONE]. */
export function completionAsFrames(completion: Json & { choices: Json[] }): Array<string | object> {
  const choice = completion.choices[0]!;
  const message = isObject(choice['message']) ? choice['message'] : {};
  const chunk = (delta: Json, finishReason: unknown = null) => ({
    id: completion['id'] ?? 'chatcmpl-scripted',
    object: 'chat.completion.chunk',
    created: completion['created'] ?? 0,
    model: completion['model'],
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const calls = Array.isArray(message['tool_calls']) ? (message['tool_calls'] as Json[]) : [];
  const frames: Array<string | object> = [chunk({ role: 'assistant', content: '' })];
  if (typeof message['content'] === 'string' && message['content'] !== '') frames.push(chunk({ content: message['content'] }));
  calls.forEach((call, index) => frames.push(chunk({ tool_calls: [{ index, ...call }] })));
  frames.push(chunk({}, choice['finish_reason'] ?? 'stop'));
  if (completion['usage'] !== undefined && completion['usage'] !== null)
    frames.push({ ...chunk({}), choices: [], usage: completion['usage'] });
  frames.push('[DONE]');
  return frames;
}

/** A chat request that did not ask to stream (a request without `stream: true` to `/chat/completions`). */
export const asksForWhole = (path: string, body: unknown): boolean => path.endsWith('/chat/completions') && !asksForStream(body);

/**
 * The whole `chat.completion` a scripted event stream adds up to (content, tool calls by index,
 * finish reason, usage), for a request that did not ask to stream; null when the frames are not
 * all chat-completion chunks (then they are sent as scripted).
 */
export function framesAsCompletion(frames: Array<string | object>): Json | null {
  let content = '';
  let model: unknown;
  let finishReason: unknown = null;
  let usage: unknown;
  const calls: Array<{ id?: unknown; name: string; arguments: string }> = [];
  for (const frame of frames) {
    if (frame === '[DONE]') continue;
    if (!isObject(frame) || frame['object'] !== 'chat.completion.chunk') return null;
    model ??= frame['model'];
    usage = frame['usage'] ?? usage;
    const choice = Array.isArray(frame['choices']) && isObject(frame['choices'][0]) ? frame['choices'][0] : undefined;
    if (!choice) continue;
    finishReason = choice['finish_reason'] ?? finishReason;
    const delta = isObject(choice['delta']) ? choice['delta'] : {};
    if (typeof delta['content'] === 'string') content += delta['content'];
    for (const part of Array.isArray(delta['tool_calls']) ? (delta['tool_calls'] as Json[]) : []) {
      const fn = isObject(part['function']) ? part['function'] : {};
      const call = (calls[typeof part['index'] === 'number' ? part['index'] : calls.length] ??= { name: '', arguments: '' });
      call.id ??= part['id'];
      if (typeof fn['name'] === 'string') call.name += fn['name'];
      if (typeof fn['arguments'] === 'string') call.arguments += fn['arguments'];
    }
  }
  const toolCalls = calls.map((c, i) => ({
    id: c.id ?? `call_${i}`,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }));
  return {
    id: 'chatcmpl-scripted',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: content || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason ?? 'stop',
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
