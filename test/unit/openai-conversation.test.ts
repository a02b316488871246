import { AppError } from '../../common/errors';
import { continuesSession, conversationKey, readConversation } from '../../completion/openai-conversation';

const fieldOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.details?.field : err;
  }
  throw new Error('expected a refusal');
};

describe('OpenAI conversations', () => {
  it('reads the last user message as the question and the rest as history, developer as system, text parts joined', () => {
    expect(
      readConversation([
        { role: 'developer', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hello ' },
            { type: 'text', text: 'there' },
          ],
        },
        { role: 'assistant', content: 'Hi!' },
        { role: 'user', content: '  Next?  ' },
      ]),
    ).toEqual({
      question: 'Next?',
      history: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
        { role: 'assistant', content: 'Hi!' },
      ],
    });
  });

  it('refuses by field what belongs to caller-sent tools, non-text parts, and a last message that is not a question', () => {
    expect(
      fieldOf(() =>
        readConversation([
          { role: 'tool', content: 'x' },
          { role: 'user', content: 'q' },
        ]),
      ),
    ).toBe('body.messages.0.role');
    expect(
      fieldOf(() => readConversation([{ role: 'assistant', content: null, tool_calls: [] } as never, { role: 'user', content: 'q' }])),
    ).toBe('body.messages.0.tool_calls');
    expect(fieldOf(() => readConversation([{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }]))).toBe(
      'body.messages.0.content.0.type',
    );
    expect(
      fieldOf(() =>
        readConversation([
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'a' },
        ]),
      ),
    ).toBe('body.messages.1.role');
    expect(fieldOf(() => readConversation([{ role: 'user', content: '   ' }]))).toBe('body.messages.0.content');
    expect(fieldOf(() => readConversation([{ role: 'user', content: 'x'.repeat(32_001) }]))).toBe('body.messages.0.content');
  });

  it('keys a conversation by caller, agent and first question, whatever came after', () => {
    const start = readConversation([{ role: 'user', content: 'First' }]);
    const later = readConversation([
      { role: 'system', content: 's' },
      { role: 'user', content: 'First' },
      { role: 'assistant', content: 'a' },
      { role: 'user', content: 'Second' },
    ]);
    expect(conversationKey('api_key:k1', 'agt_1', undefined, later)).toBe(conversationKey('api_key:k1', 'agt_1', undefined, start));
    expect(conversationKey('api_key:k2', 'agt_1', undefined, later)).not.toBe(conversationKey('api_key:k1', 'agt_1', undefined, start));
    expect(conversationKey('api_key:k1', 'agt_2', undefined, later)).not.toBe(conversationKey('api_key:k1', 'agt_1', undefined, start));
    // End users of one front end (one API key) have conversations of their own.
    expect(conversationKey('api_key:k1', 'agt_1', 'alice', later)).not.toBe(conversationKey('api_key:k1', 'agt_1', 'bob', later));
  });

  it('matches a history to the session that holds exactly its user and assistant turns (the newest ones when trimmed)', () => {
    const stored = [
      { role: 'system' as const, content: 'imported system' },
      { role: 'user' as const, content: 'q1' },
      { role: 'assistant' as const, content: 'a1 ' },
    ];
    const history = [
      { role: 'user' as const, content: 'q1' },
      { role: 'assistant' as const, content: 'a1' },
    ];
    expect(continuesSession(stored, history, false)).toBe(true);
    expect(continuesSession(stored, [...history, { role: 'user', content: 'q2' }, { role: 'assistant', content: 'a2' }], false)).toBe(
      false,
    );
    expect(continuesSession(stored, [{ role: 'user', content: 'q0' }, { role: 'assistant', content: 'a0' }, ...history], true)).toBe(true);
    expect(
      continuesSession(
        stored,
        [
          { role: 'user', content: 'q1' },
          { role: 'assistant', content: 'other' },
        ],
        false,
      ),
    ).toBe(false);
    expect(continuesSession([], history, false)).toBe(false);
    // Roles count, not only the texts.
    expect(
      continuesSession(
        stored,
        [
          { role: 'assistant', content: 'q1' },
          { role: 'user', content: 'a1' },
        ],
        false,
      ),
    ).toBe(false);
    // An answer sent back as it was streamed: an earlier step's text, then the recorded answer.
    expect(
      continuesSession(
        stored,
        [
          { role: 'user', content: 'q1' },
          { role: 'assistant', content: 'Let me check.\n\na1' },
        ],
        false,
      ),
    ).toBe(true);
    expect(
      continuesSession(
        stored,
        [
          { role: 'user', content: 'q1' },
          { role: 'assistant', content: 'xa1' },
        ],
        false,
      ),
    ).toBe(false);
    // A conversation with nothing said yet continues a session with nothing said yet (a first call that failed).
    expect(continuesSession([{ role: 'system', content: 's' }], [], false)).toBe(true);
    expect(continuesSession(stored, [], true)).toBe(false);
  });
});
