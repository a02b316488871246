import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type InputType, type ZlibOptions } from 'node:zlib';
import { invalid } from '../common/errors';
import { storableText } from '../common/storable-text';

/**
 * An inbound webhook's body, read after its signature was verified over the bytes as received:
 * inflated (Content-Encoding), decoded (charset, UTF-8 by default, undecodable bytes become
 * U+FFFD rather than failing the event), parsed, and copied with text the stores cannot hold
 * cleaned out (NUL removed, lone surrogates replaced), keys included. Pure apart from zlib.
 */

/** Every later step (the copy, Temporal's and the store's encoders) walks the payload recursively. */
export const MAX_PAYLOAD_DEPTH = 64;

export interface InboundBody {
  payload: Record<string, unknown>;
  /** The JSON text to keep: as sent when nothing needed cleaning, else the cleaned copy re-serialised. */
  text: string;
}

export interface InboundBodyOptions {
  /** The Content-Encoding header ('' when absent). */
  contentEncoding: string;
  /** The Content-Type's charset ('' when absent). */
  charset: string;
  /** Ceiling on the decompressed size, as on the received one. */
  maxBytes: number;
}

type Inflate = (buf: InputType, options?: ZlibOptions) => Buffer;

// "deflate" is meant to be zlib-wrapped (RFC 9110) but some senders send it raw: both are accepted.
const inflateEither: Inflate = (buf, options) => {
  try {
    return inflateSync(buf, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw err;
    return inflateRawSync(buf, options);
  }
};

const DECODERS: Record<string, Inflate | null> = {
  identity: null,
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateEither,
  br: brotliDecompressSync,
};

function inflate(bytes: Buffer, contentEncoding: string, maxBytes: number): Buffer {
  // Codings are listed in the order they were applied: undone from the last.
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean)
    .reverse();
  let body = bytes;
  for (const coding of codings) {
    if (!(coding in DECODERS)) {
      throw invalid(`header.Content-Encoding: ${coding.slice(0, 40)} is not supported (gzip, deflate, br, identity)`, {
        field: 'header.Content-Encoding',
      });
    }
    const decode = DECODERS[coding];
    if (!decode) continue;
    try {
      body = decode(body, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw invalid(`body: more than ${maxBytes} bytes once decompressed`, { field: 'body' });
      }
      throw invalid(`body: not valid ${coding} data`, { field: 'body' });
    }
  }
  return body;
}

/** Not fatal: a byte sequence the charset cannot decode reads as U+FFFD, and the event is kept. */
function decode(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset || 'utf-8').decode(bytes);
  } catch {
    // Only the constructor throws: a label it does not know.
    throw invalid(`header.Content-Type: unknown charset ${charset.slice(0, 40)}`, { field: 'header.Content-Type' });
  }
}

/** A copy whose keys and strings the stores can hold; `changed` when anything had to go. */
function storableCopy(value: unknown, depth: number, state: { changed: boolean }): unknown {
  if (typeof value === 'string') {
    const text = storableText(value);
    if (text !== value) state.changed = true;
    return text;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_PAYLOAD_DEPTH) throw invalid(`body: nested deeper than ${MAX_PAYLOAD_DEPTH} levels`, { field: 'body' });
  if (Array.isArray(value)) return value.map((item) => storableCopy(item, depth + 1, state));
  // fromEntries defines own properties, so a "__proto__" key stays data and sets no prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const storableKey = storableText(key);
      if (storableKey !== key) state.changed = true;
      return [storableKey, storableCopy(item, depth + 1, state)];
    }),
  );
}

export function readInboundBody(bytes: Buffer, { contentEncoding, charset, maxBytes }: InboundBodyOptions): InboundBody {
  const notAnObject = () => invalid('body: the event must be a JSON object', { field: 'body' });
  if (bytes.length === 0) throw notAnObject();
  const text = decode(inflate(bytes, contentEncoding, maxBytes), charset);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('malformed JSON body', { field: 'body' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw notAnObject();
  const state = { changed: false };
  const payload = storableCopy(parsed, 0, state) as Record<string, unknown>;
  return { payload, text: state.changed ? JSON.stringify(payload) : text };
}
