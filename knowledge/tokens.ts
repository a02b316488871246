/**
 * Token arithmetic in the vocabulary the chunk budgets are written in (cl100k_base).
 */
import { decode, encode as encodeWith } from 'gpt-tokenizer/cjs/encoding/cl100k_base';

// gpt-tokenizer caches the merges of words it has seen: documents repeat their words, so it encodes
// them about ten times faster than a plain BPE (token ids are the same).
const AS_PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/** Special-token strings inside a document (say `<|endoftext|>`) are plain text here, never a reason to throw. */
function encode(text: string): number[] {
  return encodeWith(text, AS_PLAIN_TEXT);
}

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encode(text).length;
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
