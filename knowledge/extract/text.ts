import { type Block, type ExtractedDocument } from '../document-model';
import { decodeText, normaliseLineEnds } from './decode-text';

/**
 * Paragraphs are separated by blank lines (or form feeds, which text exports of paged documents
 * use between pages). Line breaks inside a paragraph stay: parsers for laws and patents rely on
 * lines such as "Article 3" standing on their own.
 */
export function textToBlocks(text: string): Block[] {
  return normaliseLineEnds(text)
    .split(/\n(?:[ \t]*\n)+|\f/)
    .map((paragraph) => paragraph.replace(/[ \t]+$/gm, '').replace(/^\n+|\n+$/g, ''))
    .filter((paragraph) => paragraph.trim() !== '')
    .map((text): Block => ({ kind: 'paragraph', text }));
}

export function extractText(bytes: Buffer): ExtractedDocument {
  return { blocks: textToBlocks(decodeText(bytes)) };
}
