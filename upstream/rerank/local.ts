import { cosineSimilarity } from '../embeddings/vectors';
import type { EmbeddingProvider } from '../embeddings/provider';
import { contentTerms } from './query-terms';
import type { Reranker } from './reranker';
import { sentencePieces } from './sentences';

const SEMANTIC_WEIGHT = 0.6;
const COVERAGE_WEIGHT = 0.4;

/**
 * The default reranker: no extra model or service. It scores with the knowledge base's own embedding
 * provider, so with the local model it runs in-process without network.
 *
 *     score = 0.6 × semantic + 0.4 × coverage
 *
 * - semantic: the best cosine similarity between the query's embedding and the embeddings of the
 *   passage as a whole and of each of its sentences (at most 8 pieces; longer passages are grouped
 *   into 8 windows of neighbouring sentences), clamped to [0, 1]. Taking the best sentence finds a
 *   passage whose one sentence answers the question even when the rest is about something else.
 * - coverage: the weighted share of the query's distinct content words that occur in the passage.
 *   Words are lower-cased, stripped of accents, stop words are dropped and endings removed by a
 *   simple stemmer ("embeddings" matches "embedded"). A word weighs
 *   `ln(1 + (N + 1) / (df + 1)) × √min(length, 16)`, where N is the number of passages being
 *   reranked and df how many of them contain the word: rarer and longer words count more.
 *   Exact names, codes and numbers that embeddings blur are caught here.
 *
 * A query without content words (all stop words) is scored on semantic alone. Scores lie in [0, 1].
 */
export function createLocalReranker(embeddings: EmbeddingProvider): Reranker {
  return {
    name: `local:hybrid(${embeddings.model})`,
    async rerank(query, documents) {
      if (documents.length === 0) return [];
      const semantic = await semanticScores(embeddings, query, documents);
      const coverage = coverageScores(query, documents);
      return documents.map((_, i) => (coverage === null ? semantic[i]! : SEMANTIC_WEIGHT * semantic[i]! + COVERAGE_WEIGHT * coverage[i]!));
    },
  };
}

async function semanticScores(embeddings: EmbeddingProvider, query: string, documents: string[]): Promise<number[]> {
  const piecesOf = documents.map((doc) => [...new Set([doc, ...sentencePieces(doc)])]);
  // Embed each distinct text once, together with the query, in one call (one batching pass).
  const distinct = [...new Set([query, ...piecesOf.flat()])];
  const vectors = await embeddings.embed(distinct);
  const vectorOf = new Map(distinct.map((text, i) => [text, vectors[i]!]));
  const queryVector = vectorOf.get(query)!;
  return piecesOf.map((pieces) => {
    const best = Math.max(...pieces.map((piece) => cosineSimilarity(queryVector, vectorOf.get(piece)!)));
    return Math.min(1, Math.max(0, best));
  });
}

/** Per passage, the weighted share of query terms it contains; null when the query has none. */
function coverageScores(query: string, documents: string[]): number[] | null {
  const queryTerms = [...contentTerms(query)];
  if (queryTerms.length === 0) return null;
  const documentTerms = documents.map(contentTerms);
  const n = documents.length;
  const weights = queryTerms.map((term) => {
    const df = documentTerms.filter((terms) => terms.has(term)).length;
    return Math.log(1 + (n + 1) / (df + 1)) * Math.sqrt(Math.min(term.length, 16));
  });
  const total = weights.reduce((a, b) => a + b, 0);
  return documentTerms.map((terms) => queryTerms.reduce((sum, term, i) => sum + (terms.has(term) ? weights[i]! : 0), 0) / total);
}
