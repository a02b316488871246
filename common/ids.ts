import { randomBytes } from 'node:crypto';

/** Resource ids: a short type prefix and 20 random base62-ish characters, e.g. `agt_4fQ...`. */
export type IdPrefix =
  'agt' | 'ses' | 'msg' | 'evt' | 'key' | 'trc' | 'whs' | 'dlv' | 'rpl' | 'kb' | 'doc' | 'skl' | 'fil' | 'trg' | 'crn' | 'int' | 'mp';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomToken(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // Rejection sampling keeps every character equally likely (248 = 4 * 62).
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out.length === length ? out : out + randomToken(length - out.length);
}

export const newId = (prefix: IdPrefix) => `${prefix}_${randomToken(20)}`;

/**
 * Trace ids are made on every request: a random per-process part plus a counter is unique without
 * a call into the system's random source each time.
 */
const processPart = randomToken(10);
let traceCounter = 0;
export const newTraceId = () => `trc_${processPart}${(traceCounter++).toString(36).padStart(10, '0')}`;

/** Message ids of a completion's turn, derived from its trace id so a retried write adds nothing. */
export const turnMessageIds = (traceId: string, count: number) => Array.from({ length: count }, (_, i) => `msg_${traceId.slice(4)}${i}`);
