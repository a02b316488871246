/**
 * The live tests' clients, on the service named by COMBO_BASE_URL with the admin key COMBO_API_KEY
 * (tenant `default`). Every client made here records the methods whose calls succeeded, so that the
 * last test file can check that each method of the surface was exercised: a call counts once it
 * resolved (a stream: once it yielded an event or its final() resolved), not when it was made.
 */
import { Combo, CompletionStream, OPERATIONS, type ClientOptions } from '../../src/index';

export const BASE_URL = process.env.COMBO_BASE_URL ?? '';
export const API_KEY = process.env.COMBO_API_KEY ?? '';
if (!BASE_URL || !API_KEY) throw new Error('The live tests need COMBO_BASE_URL and COMBO_API_KEY (an admin key of tenant `default`).');

/** Methods written by hand that are no operation of their own. */
export const HAND_WRITTEN_EXTRAS = ['completions.stream', 'completions.follow', 'documents.wait'];

/** `resource.method` of every method of the surface. */
export const SURFACE: string[] = [...OPERATIONS.map((op) => `${op.resource}.${op.method}`), ...HAND_WRITTEN_EXTRAS];

/** The methods whose calls succeeded. */
export const exercised = new Set<string>();

/** The object holding `resource.method` and the method's name. */
export function member(client: Combo, dotted: string): { owner: Record<string, unknown>; name: string } {
  const parts = dotted.split('.');
  const name = parts.pop()!;
  let owner: unknown = client;
  for (const part of parts) owner = (owner as Record<string, unknown>)[part];
  return { owner: owner as Record<string, unknown>, name };
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';

/** Records `dotted` once the stream yields an event or its final() resolves. */
function recordStream(stream: CompletionStream, record: () => void): void {
  const iterate = stream[Symbol.asyncIterator].bind(stream);
  stream[Symbol.asyncIterator] = () => {
    const iterator = iterate();
    return {
      ...iterator,
      next: async () => {
        const result = await iterator.next();
        if (!result.done) record();
        return result;
      },
    };
  };
  const final = stream.final.bind(stream);
  stream.final = async () => {
    const result = await final();
    record();
    return result;
  };
}

/** A client on the service under test (options override), recording the methods whose calls succeeded. */
export function newClient(options: ClientOptions = {}): Combo {
  const client = new Combo({ baseURL: BASE_URL, apiKey: API_KEY, ...options });
  for (const dotted of SURFACE) {
    const { owner, name } = member(client, dotted);
    const method = owner[name];
    if (typeof method !== 'function') continue; // reported by the surface test
    const record = () => exercised.add(dotted);
    owner[name] = function (this: unknown, ...args: unknown[]) {
      const result = (method as (...a: unknown[]) => unknown).apply(this, args);
      if (result instanceof CompletionStream) recordStream(result, record);
      else if (isThenable(result))
        // Observed beside the caller's own handling (an APIPromise's request has already started).
        result.then(record, () => undefined);
      return result;
    };
  }
  return client;
}

/** A short unique suffix for names. */
export const tag = () => Math.random().toString(36).slice(2, 10);

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers something other than undefined (at most `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, stepMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await delay(stepMs);
  }
}
