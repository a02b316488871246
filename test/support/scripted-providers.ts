/**
 * Replies in the wire formats of Anthropic's Messages API and Google's Gemini API, for a
 * ScriptedUpstream standing in for those providers (test/support/scripted-chat.ts does OpenAI's).
 */

export interface ScriptedCall {
  id: string;
  name: string;
  args: object;
}

const USAGE = { input_tokens: 21, output_tokens: 6 };

/** A whole Anthropic `message`: text, then tool_use blocks. */
export function anthropicMessage(text: string, calls: ScriptedCall[] = [], model = 'claude-scripted'): object {
  return {
    id: 'msg_scripted',
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(text ? [{ type: 'text', text }] : []),
      ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
    ],
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: USAGE,
  };
}

/** The same as Anthropic's event stream: text in `pieces`, each call's input JSON in two halves. */
export function anthropicStream(pieces: string[], calls: ScriptedCall[] = [], model = 'claude-scripted'): object[] {
  const message = {
    ...anthropicMessage('', [], model),
    content: [],
    stop_reason: null,
    usage: { input_tokens: USAGE.input_tokens, output_tokens: 1 },
  };
  const events: object[] = [{ type: 'message_start', message }];
  let index = 0;
  if (pieces.length > 0) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    for (const text of pieces) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    events.push({ type: 'content_block_stop', index });
    index++;
  }
  for (const call of calls) {
    const json = JSON.stringify(call.args);
    const half = Math.floor(json.length / 2);
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    for (const part of [json.slice(0, half), json.slice(half)])
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
    events.push({ type: 'content_block_stop', index });
    index++;
  }
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: USAGE.output_tokens },
    },
    { type: 'message_stop' },
  );
  return events;
}

export const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

const GEMINI_USAGE = { promptTokenCount: 17, candidatesTokenCount: 4, totalTokenCount: 21 };

/** A whole Gemini `generateContent` answer (also one frame of `streamGenerateContent`). */
export function geminiAnswer(
  text: string,
  calls: ScriptedCall[] = [],
  { finish = 'STOP', usage = true }: { finish?: string | null; usage?: boolean } = {},
): object {
  return {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [...(text ? [{ text }] : []), ...calls.map((c) => ({ functionCall: { name: c.name, args: c.args } }))],
        },
        ...(finish ? { finishReason: finish } : {}),
        index: 0,
      },
    ],
    ...(usage ? { usageMetadata: GEMINI_USAGE } : {}),
    modelVersion: 'gemini-scripted',
  };
}

/** Gemini's event stream: one frame per piece, the last with the finish reason and usage. */
export function geminiStream(pieces: string[]): object[] {
  return pieces.map((piece, i) =>
    geminiAnswer(piece, [], i === pieces.length - 1 ? { finish: 'STOP', usage: true } : { finish: null, usage: false }),
  );
}

export const geminiError = (code: number, status: string, message: string) => ({ error: { code, message, status } });
