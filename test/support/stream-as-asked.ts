/**
 * A real OpenAI-compatible server streams when a request says `stream: true`. Tests often script a
 * plain `chat.completion` body whatever the request asks; ScriptedUpstream sends such a body as the
 * equivalent event stream when the request asked for one, as a real server would.
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
