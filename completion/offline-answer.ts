import type { Reference } from '../common/schemas/completions';
import type { SearchedChunk } from '../common/schemas/knowledge';

/** What the extractive processor needs of a retrieved passage (a search hit, or a run's Passage). */
export type QuotablePassage = Pick<SearchedChunk, 'chunk_id' | 'doc_id' | 'doc_name' | 'kb_id' | 'content' | 'similarity'>;

export interface OfflineAnswer {
  /** Markdown that says it is an extract, quotes the passages and cites them as [n]. */
  answer: string;
  /** The quoted passages, `index` matching the answer's [n]; `content` is the whole passage. */
  reference: Reference[];
}

/** Longest quote of one passage, in characters. */
export const MAX_QUOTE_CHARS = 600;

const OFFLINE_NOTICE =
  '> **No language model was used.** This is an extract of the knowledge bases, not a generated answer: ' +
  'the passages that best match the question are quoted, cut to their most relevant sentences.';

export const NO_MATCH_TEXT = 'Nothing in the searchable knowledge bases matches this question.';

// Words that carry no meaning on their own: matching them would favour any sentence.
const STOPWORDS = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or ' +
    'our should so than that the their them then there these they this those to was we were what when where which who whom why ' +
    'will with would you your about any all also been being both each few more most other some such only own same too very just ' +
    'tell explain describe please show give list much many'
  ).split(' '),
);

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]/;

/** Lowercased terms of a text: words (stopwords dropped), and for CJK runs their character bigrams. */
export function queryTerms(text: string): string[] {
  const terms = new Set<string>();
  for (const token of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (CJK.test(token)) {
      const chars = [...token];
      if (chars.length === 1) terms.add(token);
      for (let i = 0; i + 1 < chars.length; i++) terms.add(chars[i]! + chars[i + 1]!);
    } else if (token.length > 1 && !STOPWORDS.has(token)) {
      terms.add(token);
    }
  }
  return [...terms];
}

/** Sentences of a passage, whitespace collapsed; line breaks end a sentence (lists, table rows, headings). */
function sentencesOf(content: string): string[] {
  return content
    .split(/\n\s*/)
    .flatMap((line) => line.split(/(?<=[.!?;。！？；])\s+|(?<=[。！？；])/))
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

/** Distinct question terms a sentence holds; a word term also matches its inflections (`refund` in `refunds`). */
function termScore(sentence: string, terms: string[]): number {
  const lower = sentence.toLowerCase();
  const words = new Set(lower.match(/[\p{L}\p{N}]+/gu) ?? []);
  let score = 0;
  for (const term of terms) {
    if (CJK.test(term)) {
      if (lower.includes(term)) score++;
    } else if (
      words.has(term) ||
      (term.length >= 4 && [...words].some((w) => w.startsWith(term) || (w.length >= 4 && term.startsWith(w))))
    ) {
      score++;
    }
  }
  return score;
}

/** Cuts a long sentence to `max` characters around its first question term, at word boundaries. */
function cutAround(sentence: string, terms: string[], max: number): string {
  const lower = sentence.toLowerCase();
  const hit = Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0), sentence.length);
  let start = hit === sentence.length ? 0 : Math.max(0, hit - Math.floor(max / 3));
  if (start > 0) {
    const space = sentence.indexOf(' ', start);
    start = space >= 0 && space < hit ? space + 1 : start;
  }
  let end = Math.min(sentence.length, start + max - 2);
  if (end < sentence.length) {
    const space = sentence.lastIndexOf(' ', end);
    if (space > start + max / 2) end = space;
  }
  return `${start > 0 ? '…' : ''}${sentence.slice(start, end).trim()}${end < sentence.length ? '…' : ''}`;
}

/**
 * The part of a passage worth quoting: the whole passage when it is short, else its sentences
 * that hold the most of the question's terms (kept in their order, gaps marked with …), within `max`.
 */
export function quoteFor(content: string, terms: string[], max = MAX_QUOTE_CHARS): string {
  const sentences = sentencesOf(content);
  const whole = sentences.join(' ');
  if (whole.length <= max) return whole;

  const ranked = sentences
    .map((text, index) => ({ text, index, score: termScore(text, terms) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const best = ranked[0]!;
  if (best.text.length > max) return cutAround(best.text, terms, max);

  const chosen = [best];
  let length = best.text.length;
  // Sentences holding at least half as many terms as the best one; when nothing matched at all, the passage's start.
  const enough = best.score === 0 ? 0 : Math.max(1, Math.ceil(best.score / 2));
  for (const candidate of ranked.slice(1)) {
    if (candidate.score < enough) break;
    if (length + 1 + candidate.text.length + 2 > max) continue;
    chosen.push(candidate);
    length += 1 + candidate.text.length;
  }
  chosen.sort((a, b) => a.index - b.index);
  let quote = chosen[0]!.index > 0 ? '… ' : '';
  chosen.forEach((s, i) => {
    if (i > 0) quote += s.index === chosen[i - 1]!.index + 1 ? ' ' : ' … ';
    quote += s.text;
  });
  return chosen[chosen.length - 1]!.index < sentences.length - 1 ? `${quote} …` : quote;
}

/** Markdown control characters that would change the meaning of a quoted name (`_` inside a word is harmless, and common in file names). */
const escapeInline = (text: string) => text.replace(/([\\`*[\]<>|])/g, '\\$1');

/** A quote is one blockquote line: a leading `#`, `-`, `>` or `1.` would turn it into a heading, list or nested quote. */
const escapeQuote = (text: string) => text.replace(/^([#>+-])/, '\\$1').replace(/^(\d+)([.)])/, '$1\\$2');

/**
 * The offline answer: a notice that no language model was used, then the best passages quoted
 * and cited as [1], [2], ... (the order of `reference`), or a plain statement that nothing in the
 * searchable knowledge bases matches.
 */
export function composeOfflineAnswer(question: string, passages: QuotablePassage[], options: { maxPassages: number }): OfflineAnswer {
  const seen = new Set<string>();
  const usable = passages.filter((p) => {
    if (!p.content.trim() || seen.has(p.chunk_id)) return false;
    seen.add(p.chunk_id);
    return true;
  });
  const chosen = usable.slice(0, Math.max(1, Math.floor(options.maxPassages)));
  if (chosen.length === 0) return { answer: `${OFFLINE_NOTICE}\n\n${NO_MATCH_TEXT}`, reference: [] };

  const terms = queryTerms(question);
  const reference: Reference[] = chosen.map((p, i) => ({
    index: i + 1,
    chunk_id: p.chunk_id,
    doc_id: p.doc_id,
    doc_name: p.doc_name,
    kb_id: p.kb_id,
    content: p.content,
    similarity: p.similarity,
  }));
  const quotes = reference.map((r) => `**[${r.index}]** ${escapeInline(r.doc_name)}\n> ${escapeQuote(quoteFor(r.content, terms))}`);
  const lead =
    chosen.length === 1 ? 'The passage that best matches the question:' : `The ${chosen.length} passages that best match the question:`;
  return {
    answer: [OFFLINE_NOTICE, lead, ...quotes].join('\n\n'),
    reference,
  };
}
