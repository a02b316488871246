import type { Client as EsClient } from '@elastic/elasticsearch';
import { createGroupCommit, type GroupOutcome } from '../common/group-commit';
import { type HybridHit, hybridQuery } from './hybrid-query';
import type { IndexedChunk } from './indexed-chunk';

/** One chunk as a document's chunk list shows it: everything indexed but the vector. */
export type ListedChunk = Pick<IndexedChunk, 'chunk_id' | 'position' | 'content' | 'section_path' | 'role' | 'page' | 'tokens'> & {
  parse: number;
};

/**
 * Which of a document's chunks a list shows: those of one parse (`parse`), or the searchable ones
 * left by an earlier parse while parse `besides` runs or after it failed (not staged, not of that parse).
 */
export type ChunkSelection = { parse: number } | { besides: number };

const LISTED_FIELDS = ['chunk_id', 'position', 'content', 'section_path', 'role', 'page', 'tokens', 'parse'];

/** Chunks indexed before reparses existed carry no parse number: they are the upload's (1). */
const ofParse = (parse: number) =>
  parse === 1
    ? { bool: { should: [{ term: { parse: 1 } }, { bool: { must_not: [{ exists: { field: 'parse' } }] } }], minimum_should_match: 1 } }
    : { term: { parse } };

/** Fields added to the mapping after indices were first created: an existing index gets them on first use. */
const PARSE_FIELDS = { parse: { type: 'integer' }, staged: { type: 'boolean' } } as const;

/**
 * Chunks live in one index per vector size (`<prefix>-chunks-384d`), shared by tenants and
 * knowledge bases and always filtered by `tenant_id` and `kb_id`: a query never reaches another
 * tenant's chunks. The analyzer is the standard one with English stop words, the best the minimal
 * Elasticsearch distribution of the local stack ships (it has no analysis-common module).
 */
/** Chunks made searchable per bulk request when a reparse succeeds. */
const PUBLISH_BATCH = 500;

/** Chunks one grouped bulk request may carry (the writes of several documents parsed at once). */
const GROUPED_BULK_CHUNKS = 1_000;
/** Bulk requests of one index and refresh policy under way at once (a `wait_for` one lasts up to a refresh interval). */
const GROUPED_BULKS_AT_ONCE = 2;
const KEY_SEPARATOR = '\n';

export function createChunkIndex(es: EsClient, prefix: string) {
  const indexFor = (dimension: number) => `${prefix}-chunks-${dimension}d`;
  const allIndices = `${prefix}-chunks-*`;
  const ensured = new Set<number>();

  async function ensureIndex(dimension: number): Promise<string> {
    const index = indexFor(dimension);
    if (ensured.has(dimension)) return index;
    try {
      await es.indices.create({
        index,
        settings: {
          number_of_shards: 1,
          number_of_replicas: 0,
          refresh_interval: '1s',
          analysis: { analyzer: { chunk_text: { type: 'standard', stopwords: '_english_' } } },
        },
        mappings: {
          dynamic: 'strict',
          properties: {
            chunk_id: { type: 'keyword' },
            tenant_id: { type: 'keyword' },
            kb_id: { type: 'keyword' },
            doc_id: { type: 'keyword' },
            doc_name: { type: 'keyword' },
            position: { type: 'integer' },
            section_path: { type: 'keyword' },
            section_text: { type: 'text', analyzer: 'chunk_text' },
            role: { type: 'keyword' },
            page: { type: 'integer' },
            tokens: { type: 'integer' },
            content: { type: 'text', analyzer: 'chunk_text' },
            embedding: { type: 'dense_vector', dims: dimension, index: true, similarity: 'cosine' },
            ...PARSE_FIELDS,
          },
        },
      });
    } catch (err) {
      if ((err as { body?: { error?: { type?: string } } }).body?.error?.type !== 'resource_already_exists_exception') throw err;
      // An index made by an earlier version: the mapping is strict, so the new fields are added (adding is idempotent).
      await es.indices.putMapping({ index, properties: PARSE_FIELDS });
    }
    ensured.add(dimension);
    return index;
  }

  /** Finds the matching chunks' ids (after a refresh, so that the latest writes are seen) and deletes them, page by page. */
  async function deleteMatching(query: object): Promise<number> {
    // Chunks indexed since the last refresh are invisible to the search below: refresh first.
    await es.indices.refresh({ index: allIndices, allow_no_indices: true, ignore_unavailable: true });
    let deleted = 0;
    for (;;) {
      const found = await es.search({
        index: allIndices,
        allow_no_indices: true,
        ignore_unavailable: true,
        size: 1000,
        _source: false,
        query,
      });
      const hits = found.hits.hits;
      if (hits.length === 0) return deleted;
      const result = await es.bulk({ refresh: true, operations: hits.map((h) => ({ delete: { _index: h._index, _id: h._id! } })) });
      deleted += result.items.filter((i) => i.delete?.result === 'deleted').length;
    }
  }

  /** One bulk request for every group of chunks (of one index and refresh policy), each group answered by its own items. */
  async function bulkGroups(key: string, groups: IndexedChunk[][]): Promise<Array<GroupOutcome<void>>> {
    const [index, searchable] = key.split(KEY_SEPARATOR) as [string, string];
    const result = await es.bulk({
      ...(searchable ? { refresh: searchable === 'now' ? true : ('wait_for' as const) } : {}),
      operations: groups.flat().flatMap((c) => [{ index: { _index: index, _id: c.chunk_id } }, c]),
    });
    let offset = 0;
    return groups.map((group) => {
      const items = result.items.slice(offset, (offset += group.length));
      const first = result.errors ? items.find((i) => i.index?.error)?.index?.error : undefined;
      return first
        ? { ok: false, error: new Error(`Elasticsearch refused chunks: ${first.type}: ${first.reason ?? ''}`.slice(0, 300)) }
        : { ok: true, value: undefined };
    });
  }
  const bulkWrites = createGroupCommit<IndexedChunk[], void>({
    concurrency: GROUPED_BULKS_AT_ONCE,
    maxWeight: GROUPED_BULK_CHUNKS,
    weight: (chunks) => chunks.length,
    run: bulkGroups,
  });

  return {
    indexFor,

    /**
     * Candidates of a hybrid search over the tenant's knowledge bases (of one embedding dimension):
     * kNN on the question's vector and BM25 on its text, in one round trip.
     */
    async hybridCandidates(q: {
      dimension: number;
      tenantId: string;
      kbIds: string[];
      docIds?: string[];
      question: string;
      vector: number[];
      size: number;
      highlight: boolean;
    }): Promise<HybridHit[]> {
      const result = await es.search(
        hybridQuery(indexFor(q.dimension), q.tenantId, q.kbIds, q.docIds, q.question, q.vector, q.size, q.highlight),
      );
      return result.hits.hits as HybridHit[];
    },

    /**
     * Upserts by chunk id: indexing the same batch twice leaves one copy of each chunk. Concurrent
     * calls (documents parsed side by side) share bulk requests, each call failing only for its own
     * chunks. `searchable`: return once the chunks are visible to search, either at the next periodic
     * refresh (`wait`: no refresh of its own, cheaper when many small documents finish together:
     * every refresh makes a segment whose vector graph Elasticsearch merges later) or by refreshing
     * at once (`now`: no waiting up to a refresh interval).
     */
    async bulkIndex(dimension: number, chunks: IndexedChunk[], { searchable }: { searchable?: 'wait' | 'now' } = {}): Promise<void> {
      if (chunks.length === 0) return;
      const index = await ensureIndex(dimension);
      await bulkWrites.submit(`${index}${KEY_SEPARATOR}${searchable ?? ''}`, chunks);
    },

    /**
     * One page of a document's chunks in position order: those at positions `from` to `from + size - 1`
     * (a range on the position field, so a page deep into a huge document costs what the first does;
     * positions are 0, 1, 2, ... within a parse), and how many the selection holds. Chunks indexed since
     * the last refresh (at most a second ago) are not seen yet.
     */
    async documentChunks(q: {
      tenantId: string;
      docId: string;
      selection: ChunkSelection;
      from: number;
      size: number;
    }): Promise<{ items: ListedChunk[]; total: number }> {
      const query = {
        bool: {
          filter: [
            { term: { tenant_id: q.tenantId } },
            { term: { doc_id: q.docId } },
            ...('parse' in q.selection ? [ofParse(q.selection.parse)] : []),
          ],
          must_not: 'besides' in q.selection ? [{ term: { staged: true } }, ofParse(q.selection.besides)] : [],
        },
      };
      const where = { index: allIndices, allow_no_indices: true, ignore_unavailable: true };
      const [page, counted] = await Promise.all([
        es.search<Partial<IndexedChunk>>({
          ...where,
          size: q.size,
          _source: LISTED_FIELDS,
          query: { bool: { ...query.bool, filter: [...query.bool.filter, { range: { position: { gte: q.from, lt: q.from + q.size } } }] } },
          sort: [{ position: 'asc' }],
          track_total_hits: false,
        }),
        es.count({ ...where, query }),
      ]);
      const items = page.hits.hits.map(({ _source: c = {} }) => ({
        chunk_id: c.chunk_id ?? '',
        position: c.position ?? 0,
        content: c.content ?? '',
        section_path: c.section_path ?? [],
        role: c.role ?? null,
        page: c.page ?? null,
        tokens: c.tokens ?? 0,
        parse: c.parse ?? 1,
      }));
      return { items, total: counted.count };
    },

    /** Makes everything indexed so far searchable now (benchmarks; ingestion waits for the periodic refresh). */
    async refresh(dimension: number): Promise<void> {
      await es.indices.refresh({ index: await ensureIndex(dimension) });
    },

    /**
     * Removes the matching chunks and makes the removal visible at once. The minimal Elasticsearch
     * of the local stack has no delete-by-query (reindex module), so ids are found and bulk-deleted.
     * `parse`: only that parse's chunks.
     */
    deleteWhere(filter: { tenant_id: string; kb_id?: string; doc_id?: string; parse?: number }): Promise<number> {
      return deleteMatching({ bool: { filter: Object.entries(filter).map(([field, value]) => ({ term: { [field]: value } })) } });
    },

    /**
     * Makes a reparse's chunks (`ids`, written staged) searchable and removes the document's chunks
     * of every other parse, in that order: search sees the previous chunks until the new ones answer.
     */
    async publishParse(dimension: number, ref: { tenantId: string; docId: string; parse: number }, ids: string[]): Promise<void> {
      const index = await ensureIndex(dimension);
      for (let from = 0; from < ids.length; from += PUBLISH_BATCH) {
        const page = ids.slice(from, from + PUBLISH_BATCH);
        const result = await es.bulk({
          refresh: from + PUBLISH_BATCH >= ids.length,
          operations: page.flatMap((id) => [{ update: { _index: index, _id: id } }, { doc: { staged: false } }]),
        });
        if (result.errors) {
          const first = result.items.find((i) => i.update?.error)?.update?.error;
          throw new Error(`Elasticsearch refused to publish chunks: ${first?.type ?? 'unknown'}: ${first?.reason ?? ''}`.slice(0, 300));
        }
      }
      await deleteMatching({
        bool: {
          filter: [{ term: { tenant_id: ref.tenantId } }, { term: { doc_id: ref.docId } }],
          must_not: [{ term: { parse: ref.parse } }],
        },
      });
    },
  };
}

export type ChunkIndex = ReturnType<typeof createChunkIndex>;
