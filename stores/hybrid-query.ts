import type { IndexedChunk } from './indexed-chunk';

/** Chunks search may return: not a reparse's chunks still being written (`staged`). */
const notStaged = { bool: { must_not: [{ term: { staged: true } }] } };

/** One candidate of a hybrid query: the chunk, its vector, its named scores (`vector`, `term`) and highlights. */
export type HybridHit = {
  _id: string;
  _source?: Omit<IndexedChunk, 'embedding'>;
  fields?: { embedding?: number[] };
  matched_queries?: Record<string, number>;
  highlight?: { content?: string[]; section_text?: string[] };
};

/** The Elasticsearch request a search sends: one round trip, BM25 and kNN with their scores named. */
export function hybridQuery(
  index: string,
  tenantId: string,
  kbIds: string[],
  docIds: string[] | undefined,
  question: string,
  vector: number[],
  size: number,
  highlight: boolean,
) {
  const filter = [
    { term: { tenant_id: tenantId } },
    { terms: { kb_id: kbIds } },
    ...(docIds && docIds.length > 0 ? [{ terms: { doc_id: docIds } }] : []),
    // A reparse's chunks answer only once it has succeeded; until then the previous parse's do.
    notStaged,
  ];
  return {
    index,
    ignore_unavailable: true,
    include_named_queries_score: true,
    size,
    _source: { excludes: ['embedding'] },
    fields: ['embedding'],
    query: {
      bool: {
        filter,
        minimum_should_match: 1,
        should: [
          { knn: { field: 'embedding', query_vector: vector, num_candidates: Math.max(100, size * 2), filter, _name: 'vector' } },
          { multi_match: { query: question, fields: ['content', 'section_text^0.5'], _name: 'term' } },
        ],
      },
    },
    ...(highlight
      ? {
          highlight: {
            fields: { content: { number_of_fragments: 0 }, section_text: { number_of_fragments: 0 } },
            pre_tags: ['<em>'],
            post_tags: ['</em>'],
          },
        }
      : {}),
  };
}
