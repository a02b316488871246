import type { ReadableStreamDefaultReader } from 'node:stream/web';
import { Headers, type Response } from 'undici';
import { type GuardedFetchOptions, guardedFetch } from './guarded-fetch';
import { parseHttpUrl, UnsafeUrlError } from '../common/net/url-guard';
import { argumentValidator, InvalidJsonSchemaError } from '../common/schemas/skills';

/** Largest answer body read, in bytes; the rest is dropped. */
export const TOOL_BODY_MAX_BYTES = 64 * 1024;
/** How much of a failed answer's body the error carries. */
const ERROR_BODY_MAX_CHARS = 2_000;

/**
 * The call did not produce a result: bad arguments, a refused address, a network failure or a
 * non-2xx answer. The message is written for the model, which gets it as the tool result.
 */
export class ToolCallError extends Error {
  constructor(
    message: string,
    /** The HTTP status when the server answered. */
    readonly status?: number,
    /** The start of the answer's body when the server answered. */
    readonly body?: string,
  ) {
    super(message);
    this.name = 'ToolCallError';
  }
}

/** The server did not answer completely within the tool's `timeout_ms`. */
export class ToolTimeoutError extends Error {
  constructor(
    message: string,
    readonly timeoutMs: number,
  ) {
    super(message);
    this.name = 'ToolTimeoutError';
  }
}

/**
 * A skill tool as installed (SkillTool satisfies it). Looser than the manifest schema so callers can
 * pass a tool carried through a workflow's input; the method is checked again here.
 */
export interface HttpToolDefinition {
  name: string;
  parameters: Record<string, unknown>;
  http: { method: string; url: string; headers?: Record<string, string>; timeout_ms?: number };
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const DEFAULT_TIMEOUT_MS = 10_000;

export interface HttpToolOptions {
  allowPrivateUrls: boolean;
  /** Tests only: the client (and so the name resolver) the call connects through. */
  agent?: GuardedFetchOptions['agent'];
  /** The caller's cancellation (e.g. the activity's); it ends the call with the signal's reason. */
  signal?: AbortSignal;
}

export interface HttpToolResult {
  status: number;
  /** Parsed JSON; `{text}` for other content (`truncated: true` when cut at 64 KiB); null when empty. */
  body: unknown;
}

function checkArguments(tool: HttpToolDefinition, args: unknown): asserts args is Record<string, unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolCallError(`invalid arguments for tool ${tool.name}: arguments must be a JSON object`);
  }
  let validate;
  try {
    validate = argumentValidator(tool.parameters);
  } catch (err) {
    if (err instanceof InvalidJsonSchemaError) throw new ToolCallError(`tool ${tool.name} is unusable: its parameters are ${err.message}`);
    throw err;
  }
  if (!validate(args)) {
    const problems = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `arguments${e.instancePath.replace(/\//g, '.')} ${e.message ?? 'is invalid'}`);
    throw new ToolCallError(`invalid arguments for tool ${tool.name}: ${problems.join('; ')}`);
  }
}

function appendQuery(url: URL, args: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(args)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === null || item === undefined) continue;
      url.searchParams.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
}

async function readCapped(res: Response): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
    if (size + value.byteLength > TOOL_BODY_MAX_BYTES) {
      chunks.push(value.subarray(0, TOOL_BODY_MAX_BYTES - size));
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

function resultBody(contentType: string, { text, truncated }: { text: string; truncated: boolean }): unknown {
  if (text === '') return null;
  if (/\bjson\b|\+json/i.test(contentType) && !truncated) {
    try {
      return JSON.parse(text);
    } catch {
      // A server that mislabels text: hand it over as text.
    }
  }
  return truncated ? { text, truncated: true } : { text };
}

const describeFailure = (err: unknown): string => {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
};

/**
 * Runs one call of a skill's HTTP tool. The arguments are validated against the tool's parameters;
 * the target address is checked again when the connection is made (a name can resolve elsewhere
 * since install), before anything is sent. Redirects are not followed: the place they point at was
 * never checked.
 */
export async function callHttpTool(
  tool: HttpToolDefinition,
  args: Record<string, unknown>,
  options: HttpToolOptions,
): Promise<HttpToolResult> {
  checkArguments(tool, args);
  const method = tool.http.method.toUpperCase();
  if (!METHODS.has(method)) throw new ToolCallError(`tool ${tool.name} cannot be called: unsupported method ${tool.http.method}`);
  const timeoutMs = tool.http.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const refused = (err: UnsafeUrlError) => new ToolCallError(`tool ${tool.name} cannot be called: its URL ${err.message}`);
  let url: URL;
  try {
    url = parseHttpUrl(tool.http.url);
  } catch (err) {
    if (err instanceof UnsafeUrlError) throw refused(err);
    throw err;
  }
  const inQuery = method === 'GET' || method === 'DELETE';
  if (inQuery) appendQuery(url, args);
  const target = `${method} ${url.origin}${url.pathname}`;

  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const headers = new Headers({ accept: 'application/json, text/*;q=0.9, */*;q=0.5' });
    for (const [name, value] of Object.entries(tool.http.headers ?? {})) headers.set(name, value);
    if (!inQuery) headers.set('content-type', 'application/json');
    const res = await guardedFetch(
      url,
      { method, headers, body: inQuery ? undefined : JSON.stringify(args), redirect: 'manual', signal },
      { allowPrivate: options.allowPrivateUrls, agent: options.agent },
    );
    const read = await readCapped(res);
    if (res.status < 200 || res.status > 299) {
      const snippet = read.text.slice(0, ERROR_BODY_MAX_CHARS);
      const redirect =
        res.status >= 300 && res.status < 400 ? ` (redirect to ${res.headers.get('location') ?? 'nowhere'}, not followed)` : '';
      throw new ToolCallError(`${target} answered HTTP ${res.status}${redirect}${snippet ? `: ${snippet}` : ''}`, res.status, snippet);
    }
    return { status: res.status, body: resultBody(res.headers.get('content-type') ?? '', read) };
  } catch (err) {
    if (err instanceof ToolCallError) throw err;
    if (err instanceof UnsafeUrlError) throw refused(err);
    if (options.signal?.aborted) throw options.signal.reason ?? err;
    if (timeout.aborted) throw new ToolTimeoutError(`${target} did not answer within ${timeoutMs} ms`, timeoutMs);
    throw new ToolCallError(`${target} failed: ${describeFailure(err)}`);
  }
}
