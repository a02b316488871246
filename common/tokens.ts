/**
 * Token arithmetic in the vocabulary the chunk budgets are written in (cl100k_base).
 */
import { decode, encode as encodeWith } from 'gpt-tokenizer/cjs/encoding/cl100k_base';

// gpt-tokenizer caches the merges of words it has seen: documents repeat their words, so it encodes
// them about ten times faster than a plain BPE (token ids are the same).
const AS_PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * Places where cl100k's pre-tokenizer always splits, so the tokens of the pieces between them are
 * the tokens of the whole: after a line break that a non-space follows, and before a space that
 * sits between a non-space and a letter (the space starts the next word's token).
 */
const TOKEN_BOUNDARY = /\n(?=\S)|(?<=\S)(?= \p{L})/gu;

/**
 * BPE merges within one pre-token in time quadratic in its length (30 KB of one letter or of CJK
 * text without spaces takes seconds, 300 KB over a minute), so no piece handed to the encoder has
 * a stretch longer than this without a boundary: such a stretch is cut every this many characters.
 * Natural text has boundaries every few dozen characters and is encoded exactly; a cut stretch may
 * come out a token or so longer or shorter per cut.
 */
export const MAX_RUN_CHARS = 256;

/** Boundary-separated stretches are encoded together up to about this size (fewer encoder calls). */
const PIECE_CHARS = 8 * 1024;

/** `end`, moved back one when it would split a surrogate pair. */
function atCodePoint(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return end < text.length && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/**
 * `text` as consecutive pieces for the encoder (they concatenate back to it): cut at token
 * boundaries into pieces of about PIECE_CHARS, and inside a stretch longer than MAX_RUN_CHARS
 * without a boundary, every MAX_RUN_CHARS. Work is linear in the length of `text`.
 */
export function* encoderPieces(text: string): Generator<string> {
  let pieceStart = 0;
  let lastCut = 0;
  const cutAt = function* (position: number): Generator<string> {
    if (position - lastCut > MAX_RUN_CHARS) {
      if (lastCut > pieceStart) yield text.slice(pieceStart, lastCut);
      for (let start = lastCut; start < position;) {
        const end = atCodePoint(text, Math.min(position, start + MAX_RUN_CHARS));
        yield text.slice(start, end);
        start = end;
      }
      pieceStart = position;
    } else if (position - pieceStart >= PIECE_CHARS || position === text.length) {
      if (position > pieceStart) yield text.slice(pieceStart, position);
      pieceStart = position;
    }
    lastCut = position;
  };
  for (const boundary of text.matchAll(TOKEN_BOUNDARY)) yield* cutAt(boundary.index + boundary[0].length);
  yield* cutAt(text.length);
}

/** Special-token strings inside a document (say `<|endoftext|>`) are plain text here, never a reason to throw. */
function encode(text: string): number[] {
  const tokens: number[] = [];
  for (const piece of encoderPieces(text)) for (const token of encodeWith(piece, AS_PLAIN_TEXT)) tokens.push(token);
  return tokens;
}

export function countTokens(text: string): number {
  let count = 0;
  for (const piece of encoderPieces(text)) count += encodeWith(piece, AS_PLAIN_TEXT).length;
  return count;
}

/**
 * Tokens are rarely longer than a few characters, so looking at this many characters per wanted token
 * bounds the work on a huge text without cutting the answer short in practice.
 */
const CHARACTERS_PER_TOKEN_WINDOW = 12;

/** Word ends a cut may fall on: whitespace, or CJK punctuation (CJK text has no spaces). */
const BOUNDARY = /[\s，。、；：！？]/u;

/**
 * The longest start of `text` within `maxTokens` tokens, pulled back to the last word boundary when one
 * is in the second half of it (so a cut does not fall mid-word). Always a prefix of `text`.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0 || text.length === 0) return '';
  let window = text.slice(0, maxTokens * CHARACTERS_PER_TOKEN_WINDOW);
  if (/[\uD800-\uDBFF]$/.test(window)) window = window.slice(0, -1);
  const tokens = encode(window);
  if (tokens.length <= maxTokens) return window;

  // Re-encoding a cut text can, rarely, take a token more than the tokens it was decoded from.
  for (let take = maxTokens; take > 1; take--) {
    const head = atWordEnd(decodedPrefix(window, tokens, take));
    if (countTokens(head) <= maxTokens) return head;
  }
  return atWordEnd(decodedPrefix(window, tokens, 1));
}

/** `head` pulled back to its last word boundary, when one lies in its second half. */
function atWordEnd(head: string): string {
  for (let end = head.length - 1; end >= head.length / 2; end--) {
    if (BOUNDARY.test(head[end]!)) return head.slice(0, end + 1);
  }
  return head;
}

/**
 * Decoding the first `count` tokens gives a prefix of the text, except that a cut inside a multi-byte
 * character decodes to U+FFFD: those are dropped, and fewer tokens are tried if the result still is not
 * a prefix. Never empty: the first character is kept even when it alone is over the budget.
 */
function decodedPrefix(text: string, tokens: number[], count: number): string {
  for (let take = count; take > 0; take--) {
    const decoded = decode(tokens.slice(0, take)).replace(/\uFFFD+$/, '');
    if (decoded.length > 0 && text.startsWith(decoded)) return decoded;
  }
  return String.fromCodePoint(text.codePointAt(0)!);
}

/** `text` cut into consecutive pieces of at most `maxTokens` tokens each; the pieces concatenate back to it. */
export function splitByTokens(text: string, maxTokens: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const head = truncateToTokens(rest, maxTokens);
    if (head.length === rest.length) {
      pieces.push(rest);
      break;
    }
    pieces.push(head);
    rest = rest.slice(head.length);
  }
  return pieces;
}
