/**
 * The whole document as a single chunk, for short documents that only make sense read whole (a contract
 * summary, a product sheet). Cut at a generous ceiling so that one huge file cannot make a chunk no model
 * can embed; a cut chunk says so (`truncated: true`).
 */
import type { DocumentParser } from '../document-model';
import { truncateToTokens } from '../../common/tokens';
import { chunkDraft, pageMetadata } from './shared/drafts';
import { passagesOf } from './shared/passages';
import { sourceItems } from './shared/source-items';

/** The ceiling, in chunks' worth of tokens. */
const MAX_CHUNKS_IN_ONE = 8;

export const oneParser: DocumentParser = {
  id: 'one',
  description: `The whole document as one chunk (cut at ${MAX_CHUNKS_IN_ONE} x chunkTokens, marked truncated when cut).`,
  parse(doc, options) {
    const passages = passagesOf(sourceItems(doc)).filter((passage) => passage.text.trim());
    const text = passages.map((passage) => passage.text.trim()).join('\n\n');
    if (!text) return [];
    const content = truncateToTokens(text, options.chunkTokens * MAX_CHUNKS_IN_ONE);
    const truncated = content.length < text.length;
    // Pages of the passages that start inside the kept text.
    let offset = 0;
    const pages = new Set<number>();
    for (const passage of passages) {
      if (offset >= content.length) break;
      if (passage.page !== undefined) pages.add(passage.page);
      offset += passage.text.trim().length + 2;
    }
    const metadata = { ...pageMetadata([...pages]), ...(truncated ? { truncated: true } : {}) };
    return [chunkDraft(content.trimEnd(), [], { metadata })];
  },
};
