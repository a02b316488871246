import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseReply {
  status: number;
  contentType: string | null;
  events: SseEvent[];
  /** Comment lines (keep-alives) seen. */
  comments: string[];
}

/**
 * Reads a text/event-stream reply with eventsource-parser until the server ends it, or until
 * `stopAfter` events have arrived (then the connection is cut, as a client losing its network would).
 */
export async function readSse(url: string, init: RequestInit, { stopAfter }: { stopAfter?: number } = {}): Promise<SseReply> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const contentType = res.headers.get('content-type');
  if (!contentType?.startsWith('text/event-stream')) {
    return { status: res.status, contentType, events: [{ id: undefined, event: 'envelope', data: JSON.parse(await res.text()) }], comments };
  }
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => events.push({ id: message.id, event: message.event ?? 'message', data: JSON.parse(message.data) }),
    onComment: (comment) => comments.push(comment),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (stopAfter !== undefined && events.length >= stopAfter) {
        controller.abort();
        break;
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  return { status: res.status, contentType, events: stopAfter !== undefined ? events.slice(0, stopAfter) : events, comments };
}
