/**
 * Text the stores can hold. FerretDB keeps documents in PostgreSQL, which cannot store U+0000,
 * and a lone UTF-16 surrogate is not encodable as UTF-8 at all. Request bodies are refused when
 * they carry either (see firstUnstorableChar); text the service extracts itself (uploads,
 * copies of inbound payloads) is cleaned with storableText instead, so nothing a client sent is
 * lost to a crash.
 */

// A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
// eslint-disable-next-line no-control-regex -- matching U+0000 is the point: PostgreSQL cannot store it
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** Index of the first NUL or lone surrogate in `text`, -1 when there is none. */
export function firstUnstorableChar(text: string): number {
  const match = UNSTORABLE.exec(text);
  return match ? match.index : -1;
}

/** `text` with every NUL removed and every lone surrogate replaced by U+FFFD. */
export function storableText(text: string): string {
  // The common case (no match) must not copy a multi-megabyte string.
  if (firstUnstorableChar(text) < 0) return text;
  return text.replace(UNSTORABLE_ALL, (c) => (c === '\u0000' ? '' : '\uFFFD'));
}
