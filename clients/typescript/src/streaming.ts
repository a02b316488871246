/**
 * A run's event stream (a streamed completion, or `runs.events`): typed events, each once and in
 * order, across dropped connections. A connection that ends before `done` (or stays silent past the
 * timeout) is resumed with `Last-Event-ID` through GET /v1/combo/completions/{trace_id}/events;
 * before any event arrived, the completion's POST is repeated with its Idempotency-Key, which
 * attaches to the same run. Events already seen are skipped by id (`<trace_id>:<n>`).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { backoffMs, type APIResponse, type StreamConnection } from './core';
import { APIConnectionError, APIUserAbortError, ComboError, errorFromCode } from './errors';
import type { CompletionEvent, Cost, Reference, StreamEventDone } from './generated/models';
import { sleep } from './internal';

/** An event of a name this version does not know (added to the service later): passed on, not dropped. */
export interface UnknownStreamEvent {
  event: 'unknown';
  /** The event's name as sent. */
  name: string;
  id: string;
  data: unknown;
}

/** What a run's stream yields: the typed events of the OpenAPI document, and any event of a newer name. */
export type StreamEvent = CompletionEvent | UnknownStreamEvent;

/** The outcome of a streamed run, once `done` arrived. */
export interface StreamResult {
  session_id: string;
  trace_id: string;
  /** The last `message` event's answer (the final answer). */
  answer: string;
  reference: Reference[];
  /** Absent when the run ended without finishing its stream. */
  cost?: Cost;
  stop_reason?: StreamEventDone['stop_reason'];
  /** From the `accepted` event, when the stream had it. */
  route?: string;
  offline?: boolean;
}

/** Opens a connection: after `lastEventId` (none: from the start), for the run `traceId` when it is known. */
export type StreamConnector = (position: { lastEventId?: string; traceId?: string }) => Promise<StreamConnection>;

const KNOWN_EVENTS = new Set(['thinking', 'tool_call', 'approval_required', 'approval_decided', 'tool_result', 'message', 'error', 'done']);

/** `<trace_id>:<n>` → [trace_id, n]. */
function parseEventId(id: string): [string, number] | undefined {
  const at = id.lastIndexOf(':');
  if (at <= 0) return undefined;
  const n = Number(id.slice(at + 1));
  return Number.isInteger(n) ? [id.slice(0, at), n] : undefined;
}

export class CompletionStream implements AsyncIterable<StreamEvent> {
  /** The run's trace id, once the stream has told it (first event). */
  traceId: string | undefined;
  /** The id of the last event received (`<trace_id>:<n>`). */
  lastEventId: string | undefined;
  /** How many times a dropped connection was resumed, in all. */
  resumes = 0;
  /** The response of the connection that opened the stream. */
  response: APIResponse | undefined;

  readonly #connect: StreamConnector;
  readonly #maxResumes: number;
  readonly #idleTimeout: number;
  readonly #signal: AbortSignal | undefined;
  #connection: StreamConnection | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #decoder = new TextDecoder();
  #pending: EventSourceMessage[] = [];
  #parser = createParser({ onEvent: (message) => this.#pending.push(message) });
  #lastSeq = -1;
  #seen = new Set<string>();
  #failedAttempts = 0;
  #opened = 0;
  #finished = false;
  #iterating = false;
  // What final() reports.
  #answer = '';
  #reference: Reference[] = [];
  #done: StreamEventDone | undefined;
  #error: { code: number; message: string } | undefined;
  #route: string | undefined;
  #offline: boolean | undefined;

  constructor(
    connect: StreamConnector,
    options: { maxResumes: number; idleTimeout: number; signal?: AbortSignal; traceId?: string; lastEventId?: string },
  ) {
    this.#connect = connect;
    this.#maxResumes = options.maxResumes;
    this.#idleTimeout = options.idleTimeout;
    this.#signal = options.signal;
    this.traceId = options.traceId;
    if (options.lastEventId) {
      this.lastEventId = options.lastEventId;
      const parsed = parseEventId(options.lastEventId);
      if (parsed) this.#lastSeq = parsed[1];
    }
  }

  /** Opens the first connection now (so that an error answer rejects at once); iteration would open it otherwise. */
  async start(): Promise<this> {
    if (this.#opened === 0 && !this.#finished) await this.#open(false);
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.#iterating) throw new ComboError('The stream is already being iterated.');
    this.#iterating = true;
    return {
      next: async () => {
        const event = await this.#next().catch((err: unknown) => {
          this.#iterating = false;
          throw err;
        });
        if (event) return { value: event, done: false };
        this.#iterating = false;
        return { value: undefined, done: true };
      },
      // Leaving the loop early closes the connection; final() may still follow the run to its end.
      return: () => {
        this.#iterating = false;
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /**
   * The run's outcome once `done` arrived, reading the rest of the stream if it was not iterated to
   * the end. A run that failed (`error`, then `done` with `stop_reason: failed`) rejects with its
   * typed error (30001 UpstreamModelError, ...).
   */
  async final(): Promise<StreamResult> {
    while (await this.#next());
    if (this.#error || this.#done?.stop_reason === 'failed') {
      const error = this.#error ?? { code: 20001, message: 'The run failed.' };
      throw errorFromCode(error.code, error.message, { data: { trace_id: this.traceId }, traceId: this.traceId });
    }
    const done = this.#done!;
    return {
      session_id: done.session_id,
      trace_id: done.trace_id,
      answer: this.#answer,
      reference: this.#reference,
      ...(done.cost ? { cost: done.cost } : {}),
      ...(done.stop_reason ? { stop_reason: done.stop_reason } : {}),
      ...(this.#route !== undefined ? { route: this.#route } : {}),
      ...(this.#offline !== undefined ? { offline: this.#offline } : {}),
    };
  }

  /** Closes the connection (the run goes on; this does not cancel it). */
  close(): void {
    void this.#reader?.cancel().catch(() => undefined);
    this.#reader = undefined;
    this.#connection?.close();
    this.#connection = undefined;
  }

  async #open(resume: boolean): Promise<void> {
    for (;;) {
      if (resume) {
        if (this.#failedAttempts >= this.#maxResumes)
          throw new APIConnectionError(
            `The event stream dropped again after ${this.#failedAttempts} reconnections in a row without an event (maxStreamResumes); gave up.`,
          );
        this.#failedAttempts++;
        this.resumes++;
      }
      const position: { lastEventId?: string; traceId?: string } = {};
      if (this.lastEventId !== undefined) position.lastEventId = this.lastEventId;
      if (this.traceId !== undefined) position.traceId = this.traceId;
      let connection: StreamConnection;
      try {
        connection = await this.#connect(position);
      } catch (err) {
        // A resume that cannot connect (after the request's own retries) is one more drop.
        if (!resume || !(err instanceof APIConnectionError) || this.#failedAttempts >= this.#maxResumes) throw err;
        await sleep(backoffMs(this.#failedAttempts - 1), this.#signal);
        continue;
      }
      this.#opened++;
      this.response ??= connection.response;
      this.#connection = connection;
      this.#parser.reset();
      this.#decoder = new TextDecoder();
      this.#pending = [];
      this.#reader = connection.body.getReader();
      return;
    }
  }

  /** The next event not seen before; undefined after `done`. */
  async #next(): Promise<StreamEvent | undefined> {
    for (;;) {
      if (this.#finished) return undefined;
      if (this.#signal?.aborted) {
        this.close();
        throw new APIUserAbortError(undefined, { cause: this.#signal.reason });
      }
      const message = this.#pending.shift();
      if (message) {
        const event = this.#accept(message);
        if (event) return event;
        continue;
      }
      if (!this.#reader) {
        await this.#open(this.#opened > 0);
        continue;
      }
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.#read(this.#reader);
      } catch (err) {
        if (this.#signal?.aborted) {
          this.close();
          throw new APIUserAbortError(undefined, { cause: err });
        }
        chunk = { done: true, value: undefined };
      }
      if (chunk.done) {
        // The connection ended before `done`: resume after the last event.
        this.close();
        await this.#open(true);
        continue;
      }
      this.#parser.feed(this.#decoder.decode(chunk.value, { stream: true }));
    }
  }

  /** One read, failing when the connection stays silent past the timeout (keep-alive comments count as traffic). */
  #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<ReadableStreamReadResult<Uint8Array>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new APIConnectionError(`No data on the event stream for ${this.#idleTimeout} ms.`));
        void reader.cancel().catch(() => undefined);
      }, this.#idleTimeout);
      reader.read().then(
        (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  /** The typed event of a message, or undefined for one already seen (or without data). */
  #accept(message: EventSourceMessage): StreamEvent | undefined {
    const id = message.id ?? '';
    const parsed = id ? parseEventId(id) : undefined;
    if (parsed) {
      if (parsed[1] <= this.#lastSeq) return undefined;
      this.#lastSeq = parsed[1];
      this.traceId ??= parsed[0];
    } else if (id) {
      if (this.#seen.has(id)) return undefined;
      this.#seen.add(id);
    }
    if (id) this.lastEventId = id;
    this.#failedAttempts = 0;

    let data: unknown;
    try {
      data = message.data === '' ? {} : JSON.parse(message.data);
    } catch {
      data = message.data;
    }
    const name = message.event ?? 'message';
    if (!KNOWN_EVENTS.has(name)) return { event: 'unknown', name, id, data };
    const event = { event: name, id, data } as CompletionEvent;
    switch (event.event) {
      case 'thinking':
        if (event.data.phase === 'accepted') {
          this.traceId ??= event.data.trace_id;
          if (event.data.route !== undefined) this.#route = event.data.route;
          if (event.data.offline !== undefined) this.#offline = event.data.offline;
        }
        break;
      case 'message':
        // `stream_format: 'delta'`: only the new text, and the whole answer on the last message.
        this.#answer = event.data.answer ?? this.#answer + (event.data.delta ?? '');
        if (event.data.reference) this.#reference = event.data.reference;
        break;
      case 'error':
        this.#error = { code: event.data.code, message: event.data.message };
        break;
      case 'done':
        this.#done = event.data;
        this.traceId ??= event.data.trace_id;
        this.#finished = true;
        this.close();
        break;
      default:
        break;
    }
    return event;
  }
}
