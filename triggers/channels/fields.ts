/**
 * What every channel adapter shares: the normalised fields it reads, and safe reads of the
 * sender's JSON (any field may be missing or of another type; none of that is an error).
 */
export interface NormalisedFields {
  event: string;
  project: string | null;
  actor: string | null;
  url: string | null;
}

export type InboundHeaders = Record<string, string | string[] | undefined>;

/** Reads one channel's payload; `event: 'unknown'` when it does not recognise what it is. */
export type ChannelAdapter = (headers: InboundHeaders, payload: Record<string, unknown>) => NormalisedFields;

export const UNKNOWN: NormalisedFields = { event: 'unknown', project: null, actor: null, url: null };

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value at a dotted path, or undefined when any step is missing or not an object. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** The first path holding a non-empty string (numbers count, as text), or null. */
export function text(value: unknown, ...paths: string[]): string | null {
  for (const path of paths) {
    const found = at(value, path);
    if (typeof found === 'string' && found.trim() !== '') return found;
    if (typeof found === 'number' && Number.isFinite(found)) return String(found);
  }
  return null;
}

/** A header's value (Node lowercases header names; a repeated header counts by its first value). */
export function header(headers: InboundHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first && first.trim() !== '' ? first.trim() : null;
}

/** `base.action`, or `base` alone when the payload names no action. */
export const withAction = (base: string, action: string | null) => (action ? `${base}.${action}` : base);
