/**
 * The two ways a run of items becomes chunks: packed naive-style with overlap (running text), or kept as
 * one unit that is split, without overlap, only when it exceeds the budget (articles, claims, pairs).
 */
import type { ChunkDraft, ParserOptions } from '../../document-model';
import { packedDrafts, unitDrafts, type DraftExtras } from './drafts';
import { packPassages } from './packing';
import { passagesOf, type Passage } from './passages';
import type { SourceItem } from './source-items';

export function naiveChunks(
  items: readonly SourceItem[],
  sectionPath: readonly string[],
  options: ParserOptions,
  extras: DraftExtras = {},
): ChunkDraft[] {
  return packedDrafts(packPassages(passagesOf(items), options), sectionPath, extras);
}

export function unitChunks(
  passages: readonly Passage[],
  sectionPath: readonly string[],
  options: ParserOptions,
  extras: DraftExtras = {},
): ChunkDraft[] {
  return unitDrafts(packPassages(passages, { chunkTokens: options.chunkTokens, overlapTokens: 0 }), sectionPath, extras);
}
