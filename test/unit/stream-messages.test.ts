import { MessageShaper, storedMessage } from '../../common/stream-messages';

describe('stream messages', () => {
  it('stores the new text of a growing answer, and a whole text where it starts over', () => {
    expect(storedMessage('', 'Hel')).toEqual({ answer: 'Hel' });
    expect(storedMessage('Hel', 'Hello')).toEqual({ delta: 'lo' });
    expect(storedMessage('Hello', 'Bye')).toEqual({ answer: 'Bye' });
  });

  const stored = [{ answer: 'Hel' }, { delta: 'lo' }, { delta: ' you' }, { answer: 'Hello you', reference: [] }];

  it('sends the whole answer so far by default', () => {
    const shaper = new MessageShaper('answer');
    expect(stored.map((m) => shaper.shape(m))).toEqual([
      { answer: 'Hel' },
      { answer: 'Hello' },
      { answer: 'Hello you' },
      { answer: 'Hello you', reference: [] },
    ]);
  });

  it('sends only new text in delta mode, the last message whole', () => {
    const shaper = new MessageShaper('delta');
    expect(stored.map((m) => shaper.shape(m))).toEqual([
      { delta: 'Hel' },
      { delta: 'lo' },
      { delta: ' you' },
      { answer: 'Hello you', reference: [] },
    ]);
  });

  it('sends a text that starts over whole in delta mode (a new model step)', () => {
    const shaper = new MessageShaper('delta');
    expect([{ answer: 'Let me look' }, { answer: 'Found' }, { delta: ' it' }].map((m) => shaper.shape(m))).toEqual([
      { delta: 'Let me look' },
      { answer: 'Found' },
      { delta: ' it' },
    ]);
  });

  it('turns whole-answer messages recorded before deltas into deltas', () => {
    const shaper = new MessageShaper('delta');
    expect([{ answer: 'Hel' }, { answer: 'Hello' }, { answer: 'Hello', reference: [] }].map((m) => shaper.shape(m))).toEqual([
      { delta: 'Hel' },
      { delta: 'lo' },
      { answer: 'Hello', reference: [] },
    ]);
  });

  it('resumes from the text a client has: the whole answer so far by default', () => {
    const shaper = new MessageShaper('answer');
    shaper.follow({ answer: 'Hel' });
    shaper.follow({ delta: 'lo' });
    expect(shaper.shape({ delta: ' you' })).toEqual({ answer: 'Hello you' });
  });
});
