/**
 * Fixture documents shaped the way the extractors deliver them, and the checks every parser's output
 * must pass.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChunkDraft, ExtractedDocument, ParserOptions } from '../../../knowledge/document-model';
import { textToBlocks } from '../../../knowledge/extract/text';
import { splitSentences } from '../../../knowledge/parsers/shared/sentences';
import { countTokens } from '../../../common/tokens';

export function fixtureText(name: string): string {
  return readFileSync(join(__dirname, '../../fixtures/texts', name), 'utf8');
}

/** A plain-text file as the text extractor delivers it: a paragraph block per blank-line-separated paragraph. */
export function plainTextDocument(text: string): ExtractedDocument {
  return { blocks: textToBlocks(text) };
}

/** The paragraphs of a plain text, as the text extractor cuts them. */
export function plainParagraphs(text: string): string[] {
  return textToBlocks(text).flatMap((block) => (block.kind === 'paragraph' ? [block.text] : []));
}

/** Letters and digits in order: what "no text lost" compares (rules, boxes and spacing are not text). */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Whitespace runs as single spaces, for comparing text across re-wrapping and paragraph joins. */
export function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Sentences of paragraphs, flattened, as the parsers' sentence splitter sees them. */
export function sentencesOf(paragraphs: readonly string[]): string[] {
  return paragraphs.flatMap((paragraph) => splitSentences(paragraph).map(flat)).filter(Boolean);
}

/**
 * Where `content` is a run of whole consecutive `sentences` (so it neither starts nor ends mid-sentence):
 * the index of its first sentence and one past its last, or undefined when it is not such a run.
 */
export function sentenceRun(content: string, sentences: readonly string[]): { start: number; end: number } | undefined {
  const text = flat(content);
  for (let start = 0; start < sentences.length; start++) {
    if (!text.startsWith(sentences[start]!)) continue;
    let consumed = sentences[start]!.length;
    let end = start + 1;
    while (end < sentences.length) {
      // CJK sentences follow each other without a space.
      const at = text[consumed] === ' ' ? consumed + 1 : consumed;
      if (!text.startsWith(sentences[end]!, at)) break;
      consumed = at + sentences[end]!.length;
      end++;
    }
    if (consumed === text.length) return { start, end };
  }
  return undefined;
}

/** Invariants of every parser's output: non-empty trimmed content, exact token counts, the budget held. */
export function expectWellFormed(chunks: readonly ChunkDraft[], options: ParserOptions): void {
  expect(chunks.length).toBeGreaterThan(0);
  for (const chunk of chunks) {
    expect(chunk.content.trim()).toBe(chunk.content);
    expect(chunk.content.length).toBeGreaterThan(0);
    expect(chunk.tokens).toBe(countTokens(chunk.content));
    expect(chunk.tokens).toBeLessThanOrEqual(options.chunkTokens);
  }
}
