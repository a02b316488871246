/**
 * POSTs JSON to a model upstream (embeddings, rerank) and maps every failure to one error with a
 * retry hint, so callers (Temporal activities) can decide whether retrying is worth it.
 * Messages are short and never contain the API key or the request URL's credentials.
 */
import { request as httpRequest } from 'undici';
import { hostOf, isTimeout, networkCode, redact, truncate, upstreamMessage } from './upstream-text';

/** Builds the caller's own error class, e.g. EmbeddingError, from a safe message. */
type UpstreamErrorFactory = (message: string, retryable: boolean) => Error;

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
  let status: number;
  let text: string;
  try {
    // undici's request rather than fetch: the same keep-alive pool at about half fetch's cost per
    // call, which a search pays for embedding its question. One signal covers connecting, waiting
    // and reading the body: a stalled stream also times out.
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await httpRequest(url, { method: 'POST', headers, body: JSON.stringify(request.body), signal });
    status = response.statusCode;
    text = await response.body.text();
  } catch (err) {
    if (isTimeout(err)) throw makeError(`${upstream} upstream ${host} did not answer within ${timeoutMs} ms`, true);
    throw makeError(`${upstream} upstream ${host} could not be reached (${networkCode(err)})`, true);
  }
  if (status < 200 || status > 299) {
    // 429 and 5xx are the upstream's momentary trouble; other 4xx (and redirects, which an API
    // endpoint has no business sending) mean our request, address or key is wrong.
    const retryable = status === 429 || status >= 500;
    const detail = truncate(redact(upstreamMessage(text), apiKey), MAX_UPSTREAM_MESSAGE);
    throw makeError(`${upstream} upstream answered HTTP ${status}${detail ? `: ${detail}` : ''}`, retryable);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw makeError(`${upstream} upstream answered HTTP ${status} with a body that is not JSON`, false);
  }
}
