import { ApplicationFailure, heartbeat } from '@temporalio/activity';
import type { DocumentFailure } from '../common/schemas/knowledge';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import { ExtractionError } from '../knowledge/document-model';
import { EmbeddingError } from '../knowledge/embeddings';
import { extractDocument } from '../knowledge/extract';
import { getParser } from '../knowledge/parsers';
import type { ChunkBatchStore, StoredChunk } from '../stores/chunk-batches';
import type { ChunkIndex } from '../stores/chunk-index';
import type { DocumentDoc, DocumentStore } from '../stores/documents';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';

export interface KnowledgeActivityDeps {
  documents: DocumentStore;
  knowledgeBases: KnowledgeBaseStore;
  chunkBatches: ChunkBatchStore;
  chunkIndex: ChunkIndex;
  catalog: KnowledgeCatalog;
  /** Chunks embedded and indexed per activity. */
  batchSize: number;
}

interface DocumentRef {
  tenantId: string;
  kbId: string;
  docId: string;
}

/** What a chunk's vector stands for: its headings, then its text, so a heading's words count too. */
const embeddingText = (c: StoredChunk) => (c.sectionPath.length > 0 ? `${c.sectionPath.join(' > ')}\n${c.content}` : c.content);

const failed = (failure: DocumentFailure, type: string) => ApplicationFailure.nonRetryable(failure.message, type, failure);

/** Activities that parse documents: read from MongoDB/GridFS, embed, write to Elasticsearch. */
export function createKnowledgeActivities({ documents, knowledgeBases, chunkBatches, chunkIndex, catalog, batchSize }: KnowledgeActivityDeps) {
  async function documentOrGone(ref: DocumentRef): Promise<DocumentDoc> {
    const doc = await documents.collection.findOne({ _id: ref.docId, tenant_id: ref.tenantId });
    if (!doc) throw ApplicationFailure.nonRetryable(`document ${ref.docId} was deleted`, 'DocumentGone');
    return doc;
  }

  async function embedderOf(ref: DocumentRef) {
    const kb = await knowledgeBases.collection.findOne({ _id: ref.kbId, tenant_id: ref.tenantId });
    if (!kb) throw ApplicationFailure.nonRetryable(`knowledge base ${ref.kbId} was deleted`, 'DocumentGone');
    const embedder = catalog.embedder(kb.embedding_model);
    if (!embedder) {
      throw failed({ reason: 'embedding_failed', message: `embedding model ${kb.embedding_model} is not configured on this worker` }, 'EmbeddingRejected');
    }
    return { embedder, dimension: kb.dimension };
  }

  return {
    /** Reads the file, extracts its text, splits it with the document's parser and stores the chunks in batches. */
    async extractAndSplit(ref: DocumentRef): Promise<{ batches: number; chunks: number }> {
      const doc = await documentOrGone(ref);
      await documents.setProgress(doc._id, { stage: 'extracting', started_at: doc.started_at ?? new Date() });
      const bytes = await documents.readFile(doc._id);
      const parser = getParser(doc.parser_id);
      if (!parser) throw failed({ reason: 'unsupported', message: `parser ${doc.parser_id} no longer exists` }, 'ExtractionFailed');
      let drafts;
      try {
        const extracted = await extractDocument(bytes, doc.name, doc.content_type);
        drafts = parser.parse(extracted, { chunkTokens: doc.chunk_tokens, overlapTokens: doc.overlap_tokens });
      } catch (err) {
        if (err instanceof ExtractionError) throw failed({ reason: err.reason, message: err.message }, 'ExtractionFailed');
        throw err;
      }
      drafts = drafts.filter((d) => d.content.trim().length > 0);
      if (drafts.length === 0) throw failed({ reason: 'empty', message: 'the document has no text to index' }, 'ExtractionFailed');
      const batches = await chunkBatches.store(doc.tenant_id, doc._id, drafts, batchSize);
      await documents.setProgress(doc._id, {
        stage: 'embedding',
        chunks_total: drafts.length,
        token_count: drafts.reduce((sum, d) => sum + d.tokens, 0),
      });
      return { batches, chunks: drafts.length };
    },

    /** Embeds one stored batch and indexes it by chunk id (a repeat overwrites the same ids). */
    async embedAndIndexBatch(ref: DocumentRef & { batch: number; last?: boolean }): Promise<number> {
      heartbeat();
      const doc = await documentOrGone(ref);
      const { embedder, dimension } = await embedderOf(ref);
      const chunks = await chunkBatches.read(doc._id, ref.batch);
      let vectors: number[][];
      try {
        vectors = await embedder.embed(chunks.map(embeddingText));
      } catch (err) {
        if (err instanceof EmbeddingError && !err.retryable) throw failed({ reason: 'embedding_failed', message: err.message }, 'EmbeddingRejected');
        throw err;
      }
      if (vectors.some((v) => v.length !== dimension)) {
        throw failed({ reason: 'embedding_failed', message: `the embedding model answered vectors of another size than the knowledge base's ${dimension}` }, 'EmbeddingRejected');
      }
      heartbeat();
      await chunkIndex.bulkIndex(
        dimension,
        chunks.map((c, i) => ({
          chunk_id: c.chunk_id,
          tenant_id: doc.tenant_id,
          kb_id: doc.kb_id,
          doc_id: doc._id,
          doc_name: doc.name,
          position: c.position,
          section_path: c.sectionPath,
          section_text: c.sectionPath.join(' > '),
          role: c.role ?? null,
          page: typeof c.metadata?.page === 'number' ? c.metadata.page : null,
          tokens: c.tokens,
          content: c.content,
          embedding: vectors[i]!,
        })),
        // The last batch returns once everything is searchable, so `ready` means searchable.
        { waitForSearchable: ref.last === true },
      );
      // Batches are indexed in order, so everything up to this batch's last chunk is in.
      await documents.setProgress(doc._id, { chunks_indexed: (chunks.at(-1)?.position ?? -1) + 1 });
      // Deleted while this batch was being indexed: take its chunks out again.
      if (!(await documents.collection.findOne({ _id: doc._id }, { projection: { _id: 1 } }))) {
        await chunkIndex.deleteWhere({ tenant_id: doc.tenant_id, doc_id: doc._id });
        throw ApplicationFailure.nonRetryable(`document ${doc._id} was deleted`, 'DocumentGone');
      }
      return chunks.length;
    },

    /** Records the outcome (the last batch has already waited until its chunks are searchable). */
    async finishDocument(ref: DocumentRef & { error: DocumentFailure | null }): Promise<void> {
      await documents.finish(ref.docId, ref.error ? { ok: false, error: ref.error } : { ok: true });
    },
  };
}
