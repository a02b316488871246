/**
 * The HTTP machinery every resource method goes through: URL and headers, the envelope, typed errors,
 * retries with backoff and one Idempotency-Key per call, timeouts and cancellation, pages, and the
 * raw response beside the data (`.withResponse()`).
 */
import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError, ComboError, errorFromCode } from './errors';
import { isRecord, networkReason, queryString, readEnv, sleep, uuid } from './internal';
import { countingStream, multipartBody, sendWithXhr, type MultipartBody, type UploadProgress } from './uploads';

export const VERSION = '1.0.0';

/** Where the service answers when neither `baseURL` nor COMBO_BASE_URL says otherwise (`npm start`'s address). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:9380';

export interface ClientOptions {
  /** The service's address, with or without `/v1` (default: COMBO_BASE_URL, else http://127.0.0.1:9380). */
  baseURL?: string;
  /** An API key, `combo_...` (default: COMBO_API_KEY). Not needed for the signed inbound calls and health checks. */
  apiKey?: string;
  /** Retries of a failed attempt (network error, 429, 500, 503; 502/504 on reads). Default 2. */
  maxRetries?: number;
  /** Milliseconds one attempt may take (for a stream: until it answers, and between two of its events). Default 600 000. */
  timeout?: number;
  /** Failed reconnections of a dropped event stream in a row (every event received resets the count) before APIConnectionError. Default 5. */
  maxStreamResumes?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
}

/** Per-call options, the last argument of every method. */
export interface RequestOptions {
  /** Milliseconds one attempt may take (overrides the client's `timeout`). */
  timeout?: number;
  /** Cancels the call (and closes its connection); the call rejects with APIUserAbortError. */
  signal?: AbortSignal;
  /** Overrides the client's `maxRetries`. */
  maxRetries?: number;
  /** The Idempotency-Key of a POST (default: a random UUID made once per call and sent on every attempt). */
  idempotencyKey?: string;
  /** Extra headers of this call. */
  headers?: Record<string, string>;
}

/** Options of the multipart uploads. */
export interface UploadOptions extends RequestOptions {
  /** Called as the body goes out: bytes sent so far and in all. */
  onProgress?: (progress: UploadProgress) => void;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One call as the resource methods describe it. */
export interface RequestSpec {
  method: HttpMethod;
  /** The path from /v1 on, parameters already filled in. */
  path: string;
  /** Query parameters (undefined and null values are left out). */
  query?: object;
  /** The JSON body. */
  body?: unknown;
  /** A JSON body sent byte for byte (a signed inbound call). */
  rawBody?: string;
  /** A multipart/form-data body: text fields, and files under the names in `fileFields`. */
  multipart?: object;
  fileFields?: readonly string[];
  /** Sent with the API key (default true). */
  authenticated?: boolean;
  /** 502 and 504 are retried (always for GET; for a POST only where it is safe, e.g. chunk search). */
  retryGatewayErrors?: boolean;
  /** The reply is not wrapped in the envelope (the OpenAPI document). */
  raw?: boolean;
  /** Headers of this operation (signatures, Last-Event-ID). */
  headers?: Record<string, string>;
}

/** Rate-limit headers of a response. */
export interface RateLimit {
  limit: number;
  remaining: number;
  /** End of the window, Unix seconds. */
  reset: number;
}

/** The HTTP response beside the data: status, headers, trace id, rate limits. */
export class APIResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly url: string;

  constructor(readonly raw: Response) {
    this.status = raw.status;
    this.headers = raw.headers;
    this.url = raw.url;
  }

  /** The request's trace id (`X-Trace-Id`). */
  get traceId(): string | undefined {
    return this.headers.get('x-trace-id') ?? undefined;
  }

  /** `X-RateLimit-Limit`, `-Remaining`, `-Reset`; undefined when the response has none. */
  get rateLimit(): RateLimit | undefined {
    const [limit, remaining, reset] = ['limit', 'remaining', 'reset'].map((k) => Number(this.headers.get(`x-ratelimit-${k}`) ?? NaN));
    if (![limit, remaining, reset].every((n) => Number.isFinite(n))) return undefined;
    return { limit: limit!, remaining: remaining!, reset: reset! };
  }

  /** True when the service answered a repeated Idempotency-Key from the first request (`Idempotent-Replayed`). */
  get idempotentReplayed(): boolean {
    return this.headers.get('idempotent-replayed') === 'true';
  }
}

export interface WithResponse<T> {
  data: T;
  response: APIResponse;
}

/**
 * The promise every method returns: awaited, the data; `.withResponse()` gives `{ data, response }`.
 * The request starts when the method is called.
 */
export class APIPromise<T> extends Promise<T> {
  readonly #result: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(result: Promise<WithResponse<T>>) {
    super((resolve) => resolve(null as T));
    this.#result = result;
  }

  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** The data and the HTTP response (status, headers, `traceId`, `rateLimit`). */
  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  #parsed(): Promise<T> {
    return (this.#data ??= this.#result.then((r) => r.data));
  }

  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  override catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#parsed().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }
}

/** The wire form of a page. */
interface PageBody<Item> {
  items: Item[];
  total: number;
  page: number;
  page_size: number;
}

/**
 * One page of a list (`items`, `total`, `page`, `page_size`); iterating it with `for await` goes
 * through every item of this page and the following ones.
 */
export class Page<Item> implements AsyncIterable<Item> {
  items: Item[];
  total: number;
  page: number;
  page_size: number;

  constructor(
    private readonly client: ComboCore,
    private readonly spec: RequestSpec,
    private readonly options: RequestOptions,
    body: PageBody<Item>,
  ) {
    this.items = body.items;
    this.total = body.total;
    this.page = body.page;
    this.page_size = body.page_size;
  }

  hasNextPage(): boolean {
    return this.items.length > 0 && this.page * this.page_size < this.total;
  }

  /** The next page (call `hasNextPage()` first). */
  getNextPage(): PagePromise<Item> {
    return this.client.requestPage<Item>({ ...this.spec, query: { ...this.spec.query, page: this.page + 1 } }, this.options);
  }

  /** This page and every following one. */
  async *iterPages(): AsyncGenerator<Page<Item>> {
    yield this;
    let page = this.hasNextPage() ? await this.getNextPage() : undefined;
    while (page) {
      yield page;
      page = page.hasNextPage() ? await page.getNextPage() : undefined;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
    for await (const page of this.iterPages()) yield* page.items;
  }
}

/** A list call: awaited, its first page; iterated with `for await`, every item of every page. */
export class PagePromise<Item> extends APIPromise<Page<Item>> implements AsyncIterable<Item> {
  async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
    const page = await this;
    yield* page;
  }
}

/** An open event stream: its response and how to close its connection. */
export interface StreamConnection {
  response: APIResponse;
  body: ReadableStream<Uint8Array>;
  /** Closes the connection (idempotent). */
  close(): void;
}

/** Delay before retry `attempt` (0 for the first retry): 0.5 s doubling, at most 8 s, minus up to a quarter at random. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.min(500 * 2 ** attempt, 8_000) * (1 - 0.25 * random());
}

/** `Retry-After` (seconds or an HTTP date) in milliseconds, at most 60 s; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null || value.trim() === '') return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), 60_000);
}

const isEnvelope = (value: unknown): value is { code: number; data: unknown; message: string } =>
  isRecord(value) && typeof value.code === 'number' && 'data' in value;

/** Base of the client: configuration and the request machinery. */
export class ComboCore {
  readonly baseURL: string;
  readonly apiKey: string | undefined;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly maxStreamResumes: number;
  readonly #fetch: typeof fetch;
  readonly #customFetch: boolean;
  readonly #defaultHeaders: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    const baseURL = options.baseURL ?? readEnv('COMBO_BASE_URL') ?? DEFAULT_BASE_URL;
    this.baseURL = baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.apiKey = options.apiKey ?? readEnv('COMBO_API_KEY');
    this.maxRetries = options.maxRetries ?? 2;
    this.timeout = options.timeout ?? 600_000;
    this.maxStreamResumes = options.maxStreamResumes ?? 5;
    this.#customFetch = options.fetch !== undefined;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new ComboError('No fetch implementation: pass `fetch` in the client options.');
    // Called unbound, as `fetch(...)`: some runtimes refuse a fetch invoked as a method of another object.
    this.#fetch = (input, init) => fetchImpl(input, init);
    this.#defaultHeaders = lowerCased(options.defaultHeaders);
  }

  /** A call whose reply is one value (the envelope's `data`). */
  request<T>(spec: RequestSpec, options: RequestOptions = {}): APIPromise<T> {
    return new APIPromise(this.send<T>(spec, options));
  }

  /** A list call: a page that also iterates every following page. */
  requestPage<Item>(spec: RequestSpec, options: RequestOptions = {}): PagePromise<Item> {
    return new PagePromise<Item>(
      this.send<PageBody<Item>>(spec, options).then(({ data, response }) => ({
        data: new Page<Item>(this, spec, options, data),
        response,
      })),
    );
  }

  /** The call, its retries, and the unwrapped reply. */
  async send<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<WithResponse<T>> {
    const { value, response } = await this.attempts(spec, options, false, async (res) => {
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        throw new ComboError(`The reply is not JSON (HTTP ${res.status}).`, { status: res.status, headers: res.headers });
      }
      if (spec.raw) return json as T;
      if (!isEnvelope(json))
        throw new ComboError(`The reply is not an envelope (HTTP ${res.status}).`, { status: res.status, headers: res.headers });
      if (json.code !== 0) throw this.envelopeError(res, json);
      return json.data as T;
    });
    return { data: value, response };
  }

  /** Opens an event stream (text/event-stream), with the same retries as any call until it answers. */
  async openStream(spec: RequestSpec, options: RequestOptions = {}): Promise<StreamConnection> {
    const streamSpec = { ...spec, headers: { ...spec.headers, accept: 'text/event-stream' } };
    const { value } = await this.attempts(streamSpec, options, true, async (res, connection) => {
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream') || !res.body) {
        const text = await res.text().catch(() => '');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        if (isEnvelope(json) && json.code !== 0) throw this.envelopeError(res, json);
        throw new ComboError(`Expected an event stream, got ${type || 'no content type'} (HTTP ${res.status}).`, {
          status: res.status,
          headers: res.headers,
        });
      }
      return { response: new APIResponse(res), body: res.body, close: connection.close };
    });
    return value;
  }

  /**
   * Sends `spec` until an attempt succeeds, a failure is not retryable, or the retries are spent.
   * `read` consumes a successful response; its failures are retried when they are connection errors
   * (a body cut off halfway). A POST carries one Idempotency-Key on every attempt.
   */
  private async attempts<R>(
    spec: RequestSpec,
    options: RequestOptions,
    stream: boolean,
    read: (response: Response, connection: { close: () => void }) => Promise<R>,
  ): Promise<{ value: R; response: APIResponse }> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeout = options.timeout ?? this.timeout;
    const authenticated = spec.authenticated ?? true;
    // One key per call, sent on every attempt of a POST (other methods ignore it).
    const idempotencyKey = spec.method === 'POST' ? (options.idempotencyKey ?? (authenticated ? uuid() : undefined)) : undefined;
    const url = `${this.baseURL}${spec.path}${queryString(spec.query)}`;
    const multipart = spec.multipart ? await multipartBody(spec.multipart, spec.fileFields ?? []) : undefined;
    const userSignal = options.signal;

    for (let attempt = 0; ; attempt++) {
      if (userSignal?.aborted) throw new APIUserAbortError(undefined, { cause: userSignal.reason });
      const controller = new AbortController();
      const onUserAbort = () => controller.abort(userSignal?.reason);
      userSignal?.addEventListener('abort', onUserAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new APITimeoutError());
      }, timeout);
      const close = () => {
        clearTimeout(timer);
        userSignal?.removeEventListener('abort', onUserAbort);
        controller.abort(new APIUserAbortError('The stream was closed.'));
      };
      const done = () => {
        clearTimeout(timer);
        userSignal?.removeEventListener('abort', onUserAbort);
      };

      let response: Response | undefined;
      let failure: ComboError;
      try {
        response = await this.sendOnce(url, spec, options, idempotencyKey, multipart, controller.signal);
        if (response.ok) {
          const value = await read(response, { close });
          // A stream keeps its connection (and the caller's signal) until it is closed; only the timeout ends here.
          if (stream) clearTimeout(timer);
          else done();
          return { value, response: new APIResponse(response) };
        }
        const text = await response.text();
        done();
        failure = this.errorOf(response, text);
      } catch (err) {
        done();
        if (userSignal?.aborted) throw new APIUserAbortError(undefined, { cause: err });
        if (err instanceof ComboError && !(err instanceof APIConnectionError)) throw err;
        const reason = networkReason(err);
        failure = timedOut
          ? new APITimeoutError(`Request timed out after ${timeout} ms.`, { cause: err })
          : new APIConnectionError(`Connection error: ${reason}`, { cause: err });
      }
      const delay = attempt < maxRetries ? this.retryDelay(attempt, spec, response, failure) : undefined;
      if (delay === undefined) throw failure;
      await sleep(delay, userSignal);
    }
  }

  /** Milliseconds to wait before retrying, or undefined when this failure is not retried. */
  private retryDelay(attempt: number, spec: RequestSpec, response: Response | undefined, failure: ComboError): number | undefined {
    if (!response) return backoffMs(attempt); // network error or timeout
    const status = response.status;
    const gateway = (status === 502 || status === 504) && (spec.method === 'GET' || spec.retryGatewayErrors === true);
    // The same Idempotency-Key while its first request is still being processed: 409 with Retry-After.
    const inProgress = status === 409 && failure.data.field === 'header.Idempotency-Key' && response.headers.has('retry-after');
    if (!(status === 429 || status === 500 || status === 503 || gateway || inProgress)) return undefined;
    return retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(attempt);
  }

  private async sendOnce(
    url: string,
    spec: RequestSpec,
    options: RequestOptions & { onProgress?: (progress: UploadProgress) => void },
    idempotencyKey: string | undefined,
    multipart: MultipartBody | undefined,
    signal: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if ((spec.authenticated ?? true) && this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let body: BodyInit | undefined;
    if (spec.rawBody !== undefined) body = spec.rawBody;
    else if (spec.body !== undefined) body = JSON.stringify(spec.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    // The caller's headers win (names compared case-insensitively): the client's defaults, then the operation's, then the call's.
    Object.assign(headers, this.#defaultHeaders, spec.headers, lowerCased(options.headers));

    if (multipart) {
      headers['content-type'] = multipart.contentType;
      const onProgress = options.onProgress;
      // Every attempt sends the whole body again: its progress starts over from 0.
      onProgress?.({ loaded: 0, total: multipart.blob.size });
      if (onProgress && typeof XMLHttpRequest !== 'undefined' && !this.#customFetch)
        return sendWithXhr(url, { method: spec.method, headers, body: multipart.blob, signal }, onProgress);
      if (onProgress) {
        headers['content-length'] = String(multipart.blob.size);
        // A streamed body: fetch needs `duplex: 'half'` (and sends the Content-Length given).
        const init = { method: spec.method, headers, body: countingStream(multipart.blob, onProgress), signal, duplex: 'half' };
        return this.#fetch(url, init);
      }
      body = multipart.blob;
    }
    return this.#fetch(url, { method: spec.method, headers, body, signal });
  }

  private envelopeError(response: Response, envelope: { code: number; data: unknown; message: string }): ComboError {
    const data = isRecord(envelope.data) ? envelope.data : {};
    const traceId = typeof data.trace_id === 'string' ? data.trace_id : (response.headers.get('x-trace-id') ?? undefined);
    return errorFromCode(envelope.code, String(envelope.message), { status: response.status, data, headers: response.headers, traceId });
  }

  private errorOf(response: Response, text: string): ComboError {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (isEnvelope(json)) return this.envelopeError(response, json);
    return new APIError(`HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, {
      status: response.status,
      headers: response.headers,
      traceId: response.headers.get('x-trace-id') ?? undefined,
    });
  }
}

function lowerCased(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** Base of the resource classes. */
export class APIResource {
  constructor(protected readonly _client: ComboCore) {}
}
