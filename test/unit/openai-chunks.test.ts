import { openAiChunkFraming } from '../../api/openai-chunks';

const at = new Date('2026-11-29T00:00:00Z');
let seq = 0;
const event = (name: string, data: object) => ({ seq: seq++, event: name as never, data, recordedAt: at });

/** The `data:` payloads a framing wrote for a run's events, in order. */
function linesOf(includeUsage: boolean, events: Array<[string, object]>): unknown[] {
  const framing = openAiChunkFraming({ traceId: 'trc_1', created: 1, model: 'agt_1', includeUsage });
  const text = events.map(([name, data], i) => framing.frame(event(name, data), i === 0)).join('');
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      const data = frame.slice('data: '.length);
      return data === '[DONE]' ? data : JSON.parse(data);
    });
}

const contentOf = (lines: unknown[]) =>
  lines
    .map((l) => (typeof l === 'object' ? ((l as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '') : ''))
    .join('');

describe('OpenAI chunk framing', () => {
  it('opens with the role, sends only new text, closes with finish_reason, usage and [DONE]', () => {
    const lines = linesOf(true, [
      ['thinking', { phase: 'accepted' }],
      ['thinking', { phase: 'model' }],
      ['message', { answer: 'Hel' }],
      ['message', { delta: 'lo' }],
      ['tool_call', { tool: 'x', args: {} }],
      ['message', { answer: 'Hello.', reference: [] }],
      ['done', { stop_reason: 'answered', cost: { tokens: 7, input_tokens: 5, output_tokens: 2 } }],
    ]);
    expect(lines[0]).toMatchObject({
      object: 'chat.completion.chunk',
      id: 'chatcmpl-trc_1',
      choices: [{ delta: { role: 'assistant', content: '' } }],
      usage: null,
    });
    expect(contentOf(lines)).toBe('Hello.');
    expect(lines.at(-3)).toMatchObject({ choices: [{ delta: {}, finish_reason: 'stop' }] });
    expect(lines.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
    expect(lines.at(-1)).toBe('[DONE]');
  });

  it('puts a step that starts over on a new paragraph, and finishes a run cut by its limits with length', () => {
    const lines = linesOf(false, [
      ['thinking', { phase: 'accepted' }],
      ['message', { answer: 'Checking.' }],
      ['message', { answer: 'Done' }],
      ['message', { delta: ' now' }],
      ['done', { stop_reason: 'token_limit' }],
    ]);
    expect(contentOf(lines)).toBe('Checking.\n\nDone now');
    expect(lines.at(-2)).toMatchObject({ choices: [{ finish_reason: 'length' }] });
    expect(lines.at(-2) as object).not.toHaveProperty('usage');
  });

  it("sends a failure as OpenAI's error object, then [DONE] without a finish", () => {
    const lines = linesOf(false, [
      ['thinking', { phase: 'accepted' }],
      ['error', { code: 30001, message: 'the model failed' }],
      ['done', { stop_reason: 'failed' }],
    ]);
    expect(lines).toEqual([
      expect.objectContaining({ choices: [expect.objectContaining({ delta: { role: 'assistant', content: '' } })] }),
      {
        error: expect.objectContaining({
          message: 'the model failed',
          type: 'server_error',
          code: 'model_error',
          combo_code: 30001,
          trace_id: 'trc_1',
        }),
      },
      '[DONE]',
    ]);
  });
});
