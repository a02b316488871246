import type { StreamFormat } from './schemas/completions';

/**
 * A `message` event's data. Stored: `answer` (the whole text of the model step so far: the first
 * message of a step, a text that does not extend the last one, the run's last message, and every
 * message of runs recorded before deltas) or `delta` (text appended to the last one). Sent: as the
 * stream's `stream_format` asks.
 */
export interface MessageData {
  answer?: string;
  delta?: string;
  reference?: unknown[];
}

/**
 * What a writer stores for a message whose text is now `text`, having stored `before` last: only
 * the new text when it extends the last one, so a growing answer is stored once, not again in
 * every message.
 */
export function storedMessage(before: string, text: string): { answer: string } | { delta: string } {
  return before !== '' && text.startsWith(before) ? { delta: text.slice(before.length) } : { answer: text };
}

/**
 * Follows the answer's text through a stream's stored `message` events (in order) and gives each
 * one as the stream's format asks: `answer` sends the whole text so far in every message, as
 * the contract shows it; `delta` sends only new text, and a whole `answer` where the text starts
 * over (a new model step) and on the run's last message (it has `reference`), so a client that
 * reads only the last message gets the whole answer in both formats.
 */
export class MessageShaper {
  private text = '';

  constructor(private readonly format: StreamFormat) {}

  /** Takes in a stored message without sending it: the messages before a resumed stream's first event. */
  follow(stored: MessageData): void {
    this.text = stored.delta !== undefined ? this.text + stored.delta : (stored.answer ?? '');
  }

  /** The message as sent: `stored` followed, then shaped for the format. */
  shape(stored: MessageData): MessageData {
    const before = this.text;
    this.follow(stored);
    const { answer: _answer, delta: _delta, ...rest } = stored;
    if (this.format === 'answer') return { answer: this.text, ...rest };
    if (stored.delta !== undefined) return { delta: stored.delta, ...rest };
    // A whole text stored: the last message stays whole; one that extends what was sent goes as its new part.
    if (stored.reference === undefined && this.text.startsWith(before)) return { delta: this.text.slice(before.length), ...rest };
    return { answer: this.text, ...rest };
  }
}
