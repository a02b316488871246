import { ApplicationFailure } from '@temporalio/activity';
import { AppError, ErrorCodes } from '../common/errors';
import { searchBody } from '../common/schemas/knowledge';
import { type Passage, recordsEvents, type RunContext } from '../completion/run-input';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import { searchChunks } from '../knowledge/search';
import type { ChunkIndex } from '../stores/chunk-index';
import type { KnowledgeBaseDoc, KnowledgeBaseStore } from '../stores/knowledge-bases';
import type { RunEventStore } from '../stores/run-events';

export interface RetrievalDeps {
  chunkIndex: ChunkIndex;
  catalog: KnowledgeCatalog;
  knowledgeBases: KnowledgeBaseStore;
}

/**
 * The run's knowledge-base passages for a question: hybrid search over the agent's knowledge bases
 * (those still existing), restricted to `docIds` when given, reranked, numbered from 1 for citing.
 */
export async function searchPassages(
  deps: RetrievalDeps,
  tenantId: string,
  kbIds: string[],
  docIds: string[],
  question: string,
  topK: number,
): Promise<Passage[]> {
  const kbs = (await Promise.all(kbIds.map((id) => deps.knowledgeBases.getDoc(tenantId, id).catch(() => null)))).filter(
    (kb): kb is KnowledgeBaseDoc => kb !== null,
  );
  if (kbs.length === 0) return [];
  const body = searchBody.parse({
    question: question.slice(0, 2000),
    kb_ids: kbs.map((kb) => kb._id),
    ...(docIds.length > 0 ? { doc_ids: docIds } : {}),
    top_k: topK,
    highlight: false,
  });
  try {
    const result = await searchChunks(deps, tenantId, kbs, body);
    return result.chunks.map((c, i) => ({
      index: i + 1,
      chunk_id: c.chunk_id,
      doc_id: c.doc_id,
      doc_name: c.doc_name,
      kb_id: c.kb_id,
      content: c.content,
      similarity: c.similarity,
    }));
  } catch (err) {
    // A request the search refuses (knowledge bases with different embedding models) cannot pass on a retry.
    if (err instanceof AppError && err.code === ErrorCodes.INVALID_PARAMETERS)
      throw ApplicationFailure.nonRetryable(err.message, 'SearchRejected');
    throw err;
  }
}

/** Activities that reach Elasticsearch (and the embedding model) for a completion. */
export function createRetrievalActivities(deps: RetrievalDeps & { runEvents: RunEventStore }) {
  return {
    async searchKnowledge(input: { ctx: RunContext; seq: number; kbIds: string[]; docIds: string[]; question: string; topK: number }) {
      let nextSeq = input.seq;
      if (recordsEvents(input.ctx))
        nextSeq = await deps.runEvents.append(input.ctx.traceId, nextSeq, [{ event: 'thinking', data: { phase: 'retrieval' } }], {
          announce: input.ctx.stream,
        });
      const passages = await searchPassages(deps, input.ctx.tenantId, input.kbIds, input.docIds, input.question, input.topK);
      return { passages, nextSeq };
    },
  };
}
