/**
 * ChunkDrafts from packed text: token counts, page facts and the part numbering of a split unit.
 */
import type { ChunkDraft } from '../../document-model';
import { countTokens } from '../../../common/tokens';
import type { PackedText } from './packing';

export type ChunkMetadata = NonNullable<ChunkDraft['metadata']>;

export interface DraftExtras {
  role?: string;
  metadata?: ChunkMetadata;
}

export function chunkDraft(content: string, sectionPath: readonly string[], extras: DraftExtras = {}): ChunkDraft {
  const draft: ChunkDraft = { content, sectionPath: [...sectionPath], tokens: countTokens(content) };
  if (extras.role) draft.role = extras.role;
  if (extras.metadata && Object.keys(extras.metadata).length > 0) draft.metadata = { ...extras.metadata };
  return draft;
}

/** `page` is where the chunk starts; `last_page` is added when it runs onto later pages. */
export function pageMetadata(pages: readonly number[]): ChunkMetadata {
  if (pages.length === 0) return {};
  const first = pages[0]!;
  const last = pages[pages.length - 1]!;
  return last === first ? { page: first } : { page: first, last_page: last };
}

/** Drafts of packed chunks that share a path, role and metadata (the chunks of one section). */
export function packedDrafts(packed: readonly PackedText[], sectionPath: readonly string[], extras: DraftExtras = {}): ChunkDraft[] {
  return packed.map((chunk) =>
    chunkDraft(chunk.text, sectionPath, { role: extras.role, metadata: { ...extras.metadata, ...pageMetadata(chunk.pages) } }),
  );
}

/**
 * Drafts of one unit that is meant to be a single chunk (an article, a claim, a QA pair): when it had to
 * be split, every piece keeps the unit's path and metadata and says which part of how many it is.
 */
export function unitDrafts(packed: readonly PackedText[], sectionPath: readonly string[], extras: DraftExtras = {}): ChunkDraft[] {
  return packed.map((chunk, index) =>
    chunkDraft(chunk.text, sectionPath, {
      role: extras.role,
      metadata: {
        ...extras.metadata,
        ...pageMetadata(chunk.pages),
        ...(packed.length > 1 ? { part: index + 1, parts: packed.length } : {}),
      },
    }),
  );
}
