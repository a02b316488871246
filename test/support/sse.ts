import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { checkResponse, checkStreamEvent } from './openapi-check';

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
 * Each event, and a JSON reply, is checked against the served OpenAPI document.
 */
export async function readSse(url: string, init: RequestInit, { stopAfter }: { stopAfter?: number } = {}): Promise<SseReply> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const contentType = res.headers.get('content-type');
  const { origin, pathname, search } = new URL(url);
  const method = init.method ?? 'GET';
  if (!contentType?.startsWith('text/event-stream')) {
    const body = JSON.parse(await res.text());
    await checkResponse(origin, { method, path: pathname + search, status: res.status, contentType, body });
    return { status: res.status, contentType, events: [{ id: undefined, event: 'envelope', data: body }], comments };
  }
  // As on the wire (`data` the text of the `data:` line), for the check against the document.
  const wire: { id: string | undefined; event: string; data: string }[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      wire.push({ id: message.id, event: message.event ?? 'message', data: message.data });
      events.push({ id: message.id, event: message.event ?? 'message', data: JSON.parse(message.data) });
    },
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
  const received = stopAfter !== undefined ? events.slice(0, stopAfter) : events;
  for (const event of wire.slice(0, received.length)) await checkStreamEvent(origin, method, pathname, event);
  return { status: res.status, contentType, events: received, comments };
}
