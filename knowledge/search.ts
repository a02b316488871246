import { AppError, ErrorCodes, invalid } from '../common/errors';
import type { SearchBody, SearchedChunk, SearchResult } from '../common/schemas/knowledge';
import type { ChunkIndex } from '../stores/chunk-index';
import type { KnowledgeBaseDoc } from '../stores/knowledge-bases';
import type { KnowledgeCatalog } from './catalog';
import { cosineSimilarity } from '../upstream/embeddings';

const DEFAULT_VECTOR_WEIGHT = 0.7;
const DEFAULT_KEYWORD_WEIGHT = 0.3;

/** Either weight alone implies the other (they sum to 1); neither gives 0.7 / 0.3. */
function searchWeights(body: Pick<SearchBody, 'vector_similarity_weight' | 'keyword_weight'>) {
  const vector = body.vector_similarity_weight ?? (body.keyword_weight !== undefined ? 1 - body.keyword_weight : DEFAULT_VECTOR_WEIGHT);
  const keyword =
    body.keyword_weight ?? (body.vector_similarity_weight !== undefined ? 1 - body.vector_similarity_weight : DEFAULT_KEYWORD_WEIGHT);
  return { vector, keyword };
}

/** Candidates fetched from the index before thresholding and reranking. */
const candidateCount = (body: Pick<SearchBody, 'top_k' | 'rerank_top_n'>) => Math.min(200, Math.max(body.top_k * 4, body.rerank_top_n, 32));

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const round = (x: number) => Number(x.toFixed(6));

export interface SearchDeps {
  chunkIndex: ChunkIndex;
  catalog: KnowledgeCatalog;
}

/**
 * Hybrid search over a tenant's knowledge bases. Each candidate gets a vector part (cosine of
 * question and chunk, 0-1) and a term part (its BM25 score over the best BM25 score among the
 * candidates, 0-1); similarity = (wv·vector + wk·term) / (wv + wk). Candidates under the threshold
 * are dropped; the best rerank_top_n are re-scored by the reranker and lead the order by that score.
 */
export async function searchChunks(
  { chunkIndex, catalog }: SearchDeps,
  tenantId: string,
  kbs: KnowledgeBaseDoc[],
  body: SearchBody,
): Promise<SearchResult> {
  const models = [...new Set(kbs.map((kb) => kb.embedding_model))];
  if (models.length > 1)
    throw invalid(`body.kb_ids: the knowledge bases use different embedding models (${models.join(', ')}); search them separately`, {
      field: 'body.kb_ids',
    });
  const model = models[0]!;
  const embedder = catalog.embedder(model);
  if (!embedder) throw new AppError(ErrorCodes.INTERNAL, `embedding model ${model} is not configured on this installation`);

  let vector: number[];
  try {
    [vector] = (await embedder.embed([body.question])) as [number[]];
  } catch (err) {
    throw new AppError(ErrorCodes.LLM_FAILED, `the embedding model failed: ${(err as Error).message}`.slice(0, 300));
  }
  const weights = searchWeights(body);
  const hits = await chunkIndex.hybridCandidates({
    dimension: kbs[0]!.dimension,
    tenantId,
    kbIds: kbs.map((kb) => kb._id),
    docIds: body.doc_ids,
    question: body.question,
    vector,
    size: candidateCount(body),
    highlight: body.highlight,
  });
  const bestTerm = Math.max(0, ...hits.map((h) => h.matched_queries?.term ?? 0));

  const candidates: SearchedChunk[] = hits
    .filter((h) => h._source)
    .map((h) => {
      const src = h._source!;
      const knnScore = h.matched_queries?.vector;
      // Elasticsearch scores cosine kNN as (1 + cos) / 2; a chunk found by its terms alone is compared here.
      const vectorPart = clamp01(
        knnScore !== undefined ? 2 * knnScore - 1 : h.fields?.embedding ? cosineSimilarity(vector, h.fields.embedding) : 0,
      );
      const termPart = bestTerm > 0 ? clamp01((h.matched_queries?.term ?? 0) / bestTerm) : 0;
      return {
        chunk_id: h._id,
        content: src.content,
        doc_id: src.doc_id,
        doc_name: src.doc_name,
        kb_id: src.kb_id,
        position: src.position,
        section_path: src.section_path ?? [],
        role: src.role ?? null,
        page: src.page ?? null,
        similarity: round((weights.vector * vectorPart + weights.keyword * termPart) / (weights.vector + weights.keyword)),
        vector_similarity: round(vectorPart),
        term_similarity: round(termPart),
        rerank_score: null,
        highlight: h.highlight?.content?.[0] ?? h.highlight?.section_text?.[0] ?? null,
      };
    })
    .filter((c) => c.similarity >= body.similarity_threshold)
    .sort((a, b) => b.similarity - a.similarity);

  const reranker = body.rerank_top_n > 0 ? catalog.reranker(embedder) : null;
  let ordered = candidates;
  if (reranker && candidates.length > 0) {
    const head = candidates.slice(0, body.rerank_top_n);
    let scores: number[];
    try {
      scores = await reranker.rerank(
        body.question,
        head.map((c) => c.content),
      );
    } catch (err) {
      throw new AppError(ErrorCodes.LLM_FAILED, `the reranker failed: ${(err as Error).message}`.slice(0, 300));
    }
    head.forEach((c, i) => (c.rerank_score = round(scores[i] ?? 0)));
    // The reranker refines the hybrid order rather than replacing it: a reranker's single view
    // (sentence cosine, or a cross-encoder's) misses what the two retrieval signals agree on.
    const rank = (c: SearchedChunk) => (c.similarity + c.rerank_score!) / 2;
    ordered = [...head.sort((a, b) => rank(b) - rank(a)), ...candidates.slice(body.rerank_top_n)];
  }

  const perDoc = new Map<string, { doc_id: string; doc_name: string; count: number }>();
  for (const c of candidates) {
    const entry = perDoc.get(c.doc_id) ?? { doc_id: c.doc_id, doc_name: c.doc_name, count: 0 };
    entry.count++;
    perDoc.set(c.doc_id, entry);
  }
  return {
    chunks: ordered.slice(0, body.top_k),
    total: candidates.length,
    doc_aggs: [...perDoc.values()].sort((a, b) => b.count - a.count),
    embedding_model: model,
    reranker: reranker?.name ?? null,
  };
}
