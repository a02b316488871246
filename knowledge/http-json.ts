/**
 * POSTs JSON to a model upstream (embeddings, rerank) and maps every failure to one error with a
 * retry hint, so callers (Temporal activities) can decide whether retrying is worth it.
 * Messages are short and never contain the API key or the request URL's credentials.
 */

/** Builds the caller's own error class, e.g. EmbeddingError, from a safe message. */
export type UpstreamErrorFactory = (message: string, retryable: boolean) => Error;

export interface JsonPostRequest {
  url: string;
  body: unknown;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string;
  timeoutMs: number;
  /** What the upstream is, for messages: "embeddings", "rerank". */
  upstream: string;
  makeError: UpstreamErrorFactory;
}

const MAX_UPSTREAM_MESSAGE = 200;

export async function postJson(request: JsonPostRequest): Promise<unknown> {
  const { url, apiKey, timeoutMs, upstream, makeError } = request;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
  const host = hostOf(url);
  if (host === undefined) throw makeError(`${upstream} upstream address is not a valid http(s) URL`, false);
  let response: Response;
  let text: string;
  try {
    // One signal covers connecting, waiting and reading the body: a stalled stream also times out.
    const signal = AbortSignal.timeout(timeoutMs);
    response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(request.body), signal });
    text = await response.text();
  } catch (err) {
    if (isTimeout(err)) throw makeError(`${upstream} upstream ${host} did not answer within ${timeoutMs} ms`, true);
    throw makeError(`${upstream} upstream ${host} could not be reached (${networkCode(err)})`, true);
  }
  if (!response.ok) {
    // 429 and 5xx are the upstream's momentary trouble; other 4xx mean our request or key is wrong.
    const retryable = response.status === 429 || response.status >= 500;
    const detail = redact(upstreamMessage(text), apiKey);
    throw makeError(`${upstream} upstream answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`, retryable);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw makeError(`${upstream} upstream answered HTTP ${response.status} with a body that is not JSON`, false);
  }
}

/** The upstream's own explanation: OpenAI's error.message, Cohere's message, or the raw text. */
function upstreamMessage(text: string): string {
  let message = text;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body['error'];
    const candidates = [
      typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['message'] : error,
      body['message'],
      body['detail'],
    ];
    const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
    if (found) message = found;
  } catch {
    // not JSON: keep the text
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > MAX_UPSTREAM_MESSAGE ? `${message.slice(0, MAX_UPSTREAM_MESSAGE)}…` : message;
}

/**
 * Upstreams sometimes quote the key they were given (OpenAI's 401 shows a masked form of it).
 * Remove the exact key and anything shaped like one.
 */
function redact(message: string, apiKey: string | undefined): string {
  let safe = message;
  if (apiKey) safe = safe.split(apiKey).join('[redacted]');
  return safe.replace(/\b(?:sk|pk|rk|key|api|jina)[-_][A-Za-z0-9*_.-]{6,}/gi, '[redacted]');
}

/** Only the host goes into messages: the full URL may carry credentials or a key parameter. */
function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

// Duck-typed: fetch's errors come from Node's own realm, where `instanceof Error` may not hold
// (DOMException under some test runners).
function isTimeout(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/** fetch hides the reason in `cause`: ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET... */
function networkCode(err: unknown): string {
  const { cause, name } = (err ?? {}) as { cause?: { code?: unknown }; name?: unknown };
  if (typeof cause?.code === 'string') return cause.code;
  return typeof name === 'string' ? name : 'unknown error';
}
