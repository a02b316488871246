/**
 * General documents: token-bounded chunks that keep paragraphs and then sentences whole, with overlap
 * inside a section; headings are not chunks but the sectionPath of the chunks under them, and no chunk
 * spans two sections.
 */
import type { DocumentParser } from '../document-model';
import { naiveChunks } from './shared/naive-chunks';
import { headingBlocks, outline } from './shared/outline';
import { sourceItems } from './shared/source-items';

export const naiveParser: DocumentParser = {
  id: 'naive',
  description:
    'General documents: chunks of up to chunkTokens that keep paragraphs and sentences whole, with overlapTokens of whole sentences repeated between neighbours; headings become the section path.',
  parse(doc, options) {
    return outline(sourceItems(doc), headingBlocks).flatMap((section) => naiveChunks(section.body, section.path, options));
  },
};
