/** Small helpers shared by the client's modules (not exported from the package). */
import { APIUserAbortError } from './errors';

/** A random UUID v4: `crypto.randomUUID()`, or built from `getRandomValues` where that is missing (insecure browser contexts). */
export function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const bytes = new Uint8Array(16);
  c.getRandomValues(bytes);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An environment variable, where there is an environment (Node, Deno, Bun); undefined in browsers. */
export function readEnv(name: string): string | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = proc?.env?.[name]?.trim();
  return value ? value : undefined;
}

/** Resolves after `ms`, or rejects with APIUserAbortError when `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError(undefined, { cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError(undefined, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `{ a: 1 }` → `a=1`; undefined and null values are left out, arrays repeat the name. */
export function queryString(query: object | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) params.append(key, scalar(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** Headers of any common shape (fetch `Headers`, Node's `IncomingHttpHeaders`, a plain record), read case-insensitively. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined | null>;

export function headerValue(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined | null>)) {
    if (key.toLowerCase() !== wanted || value == null) continue;
    return Array.isArray(value) ? value.join(',') : value;
  }
  return undefined;
}

/** Imports a Node.js built-in without bundlers for browsers trying to resolve it. */
export async function importNodeBuiltin<T>(name: string): Promise<T> {
  const specifier = `node:${name}`;
  return (await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)) as T;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The reason for a network failure, from the innermost `cause`: fetch's own error only says
 * "fetch failed"; the socket's error under it says `connect ECONNREFUSED 127.0.0.1:9399`.
 */
export function networkReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  let inner: Error = err;
  for (let depth = 0; depth < 10 && inner.cause instanceof Error; depth++) inner = inner.cause;
  let message = inner.message;
  // An AggregateError (one error per address tried) may have no message of its own.
  const errors = (inner as { errors?: unknown }).errors;
  if (!message && Array.isArray(errors))
    message = errors
      .map((e) => (e instanceof Error ? e.message : String(e)))
      .filter(Boolean)
      .join('; ');
  const code = (inner as { code?: unknown }).code;
  if (typeof code === 'string' && !message.includes(code)) message = message ? `${message} (${code})` : code;
  return message || err.message;
}
