import { activityInfo, ApplicationFailure, Context, heartbeat } from '@temporalio/activity';
import type { EventRecord } from '../common/events';
import { createGroupCommit } from '../common/group-commit';
import type { DocumentFailure } from '../common/schemas/knowledge';
import { startedEarly } from '../common/started-early';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import { chunkIdFor } from '../knowledge/chunk-ids';
import type { ChunkDraft } from '../knowledge/document-model';
import { EmbeddingError, type EmbeddingProvider } from '../upstream/embeddings';
import type { DocumentParsing } from '../knowledge/parse-pool';
import type { ChunkIndex } from '../stores/chunk-index';
import type { IndexedChunk } from '../stores/indexed-chunk';
import type { DocumentDoc, DocumentStore } from '../stores/documents';
import type { EventLog } from '../stores/event-log';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';
import { documentFailedEvent, documentParsedEvent, type ParseRef } from './document-events';
import { createProgressReporter } from './document-progress';
import { createGroupedEmbeddings } from './grouped-embeddings';

export interface KnowledgeActivityDeps {
  documents: DocumentStore;
  knowledgeBases: KnowledgeBaseStore;
  chunkIndex: ChunkIndex;
  catalog: KnowledgeCatalog;
  parsing: DocumentParsing;
  eventLog: EventLog;
  /** Chunks embedded and bulk-indexed together. */
  batchSize: number;
}

interface DocumentRef {
  tenantId: string;
  kbId: string;
  docId: string;
  /** Which parse of the document this is (1: the upload's); absent in runs started before reparses existed. */
  parse?: number;
}

const parseOf = (ref: DocumentRef): ParseRef => ({ tenantId: ref.tenantId, kbId: ref.kbId, docId: ref.docId, parse: ref.parse ?? 1 });

/** What a chunk's vector stands for: its headings, then its text, so a heading's words count too. */
const embeddingText = (c: ChunkDraft) => (c.sectionPath.length > 0 ? `${c.sectionPath.join(' > ')}\n${c.content}` : c.content);

const failed = (failure: DocumentFailure, type: string) => ApplicationFailure.nonRetryable(failure.message, type, failure);

/** The parse already stopped because the document is gone (its chunks removed on the way). */
const isDocumentGone = (err: unknown) => err instanceof ApplicationFailure && err.type === 'DocumentGone';

const HEARTBEAT_EVERY_MS = 3_000;

/** A parse that ends sooner records its progress once, with its outcome (see createProgressReporter). */
const QUIET_PROGRESS_MS = 1_000;

/** Documents of more batches than this make their chunks searchable by refreshing the index. */
const REFRESH_AFTER_BATCHES = 4;

/** Upstream embedding calls of one model under way at once; the documents' calls made meanwhile are merged. */
const EMBEDDING_CALLS_AT_ONCE = 2;

/** Outcome events of documents that end together, written in one pair of inserts. */
const GROUPED_EVENTS = 500;

/**
 * Heartbeats every few seconds while `work` runs, so a slow upstream is not taken for a dead worker;
 * a cancellation (which arrives with a heartbeat's answer) ends the wait at once, whatever `work` is waiting on.
 */
async function whileHeartbeating<T>(chunksDone: number, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => heartbeat(chunksDone), HEARTBEAT_EVERY_MS);
  try {
    return await Promise.race([work(), Context.current().cancelled]);
  } finally {
    clearInterval(timer);
  }
}

/** A reparse's chunks are written staged (not searchable) and published once it succeeds; the upload's are searchable at once. */
function indexedChunk(doc: DocumentDoc, parse: number, c: ChunkDraft, position: number, embedding: number[]): IndexedChunk {
  return {
    chunk_id: chunkIdFor(doc._id, position, parse),
    parse,
    staged: parse > 1,
    tenant_id: doc.tenant_id,
    kb_id: doc.kb_id,
    doc_id: doc._id,
    doc_name: doc.name,
    position,
    section_path: c.sectionPath,
    section_text: c.sectionPath.join(' > '),
    role: c.role ?? null,
    page: typeof c.metadata?.page === 'number' ? c.metadata.page : null,
    tokens: c.tokens,
    content: c.content,
    embedding,
  };
}

type EmbedCall = (embedder: EmbeddingProvider, texts: string[]) => Promise<number[][]>;

/** Vectors for a batch, of the knowledge base's dimension; a refused input fails the document with the reason. */
async function embedBatch(embed: EmbedCall, embedder: EmbeddingProvider, dimension: number, chunks: ChunkDraft[]): Promise<number[][]> {
  let vectors: number[][];
  try {
    vectors = await embed(embedder, chunks.map(embeddingText));
  } catch (err) {
    if (err instanceof EmbeddingError && !err.retryable)
      throw failed({ reason: 'embedding_failed', message: err.message }, 'EmbeddingRejected');
    throw err;
  }
  if (vectors.some((v) => v.length !== dimension)) {
    throw failed(
      {
        reason: 'embedding_failed',
        message: `the embedding model answered vectors of another size than the knowledge base's ${dimension}`,
      },
      'EmbeddingRejected',
    );
  }
  return vectors;
}

/** Activities that parse documents: read from MongoDB, embed, write to Elasticsearch. */
export function createKnowledgeActivities({
  documents,
  knowledgeBases,
  chunkIndex,
  catalog,
  parsing,
  eventLog,
  batchSize,
}: KnowledgeActivityDeps) {
  // Documents parsed side by side share upstream calls, bulk requests (stores/chunk-index.ts) and event writes.
  const embeddings = createGroupedEmbeddings({ maxTexts: batchSize, concurrency: EMBEDDING_CALLS_AT_ONCE });
  const embed: EmbedCall = (embedder, texts) => embeddings.embed(embedder, texts);
  const outcomeEvents = createGroupCommit<EventRecord[], void>({
    concurrency: 1,
    maxWeight: GROUPED_EVENTS,
    weight: (records) => records.length,
    run: async (_, groups) => {
      await eventLog.appendMany(groups.flat());
      return groups.map(() => ({ ok: true, value: undefined }));
    },
  });

  async function documentOrGone(ref: DocumentRef): Promise<DocumentDoc> {
    const doc = await documents.find(ref.tenantId, ref.docId);
    if (!doc) throw ApplicationFailure.nonRetryable(`document ${ref.docId} was deleted`, 'DocumentGone');
    return doc;
  }

  /**
   * Once the document is deleted, its chunks indexed so far leave the index and the parse ends.
   * Checked after every batch (one read by id): a delete removes the record first and the chunks
   * after, so a batch indexed in between is removed here. (A write that found no document being
   * parsed while the document exists was finished by an earlier attempt whose worker died before
   * reporting: the parse goes on, rewriting the same chunks and outcome.)
   */
  async function stopIfDeleted(doc: DocumentDoc): Promise<void> {
    if (await documents.exists(doc._id)) return;
    await chunkIndex.deleteWhere({ tenant_id: doc.tenant_id, doc_id: doc._id });
    throw ApplicationFailure.nonRetryable(`document ${doc._id} was deleted`, 'DocumentGone');
  }

  /**
   * A cancelled attempt (the delete terminated its workflow, or the time bound cancelled it) stops
   * waiting at once, but a bulk request already sent still lands: it is awaited, and if the
   * document is gone this parse's chunks are removed after it, so no batch outlives the delete's purge.
   */
  async function cleanUpAfter(indexing: Promise<void> | undefined, doc: DocumentDoc): Promise<void> {
    await indexing?.catch(() => undefined);
    if (await documents.exists(doc._id)) return;
    await chunkIndex.deleteWhere({ tenant_id: doc.tenant_id, doc_id: doc._id });
  }

  async function embedderOf(ref: DocumentRef) {
    const kb = await knowledgeBases.find(ref.tenantId, ref.kbId);
    if (!kb) throw ApplicationFailure.nonRetryable(`knowledge base ${ref.kbId} was deleted`, 'DocumentGone');
    const embedder = catalog.embedder(kb.embedding_model);
    if (!embedder) {
      throw failed(
        { reason: 'embedding_failed', message: `embedding model ${kb.embedding_model} is not configured on this worker` },
        'EmbeddingRejected',
      );
    }
    return { embedder, dimension: kb.dimension };
  }

  /** The file's text split by the document's parser; a file that cannot be read fails the document with the reason. */
  async function extractAndSplit(doc: DocumentDoc): Promise<ChunkDraft[]> {
    const outcome = await parsing.parse(
      {
        bytes: await documents.readFile(doc),
        name: doc.name,
        contentType: doc.content_type,
        parserId: doc.parser_id,
        options: { chunkTokens: doc.chunk_tokens, overlapTokens: doc.overlap_tokens },
      },
      Context.current().cancellationSignal,
    );
    if (outcome.kind === 'failed') throw failed({ reason: outcome.reason, message: outcome.message }, 'ExtractionFailed');
    // Our side (an extraction engine that did not load): retried like any infrastructure fault.
    if (outcome.kind === 'unavailable') throw ApplicationFailure.retryable(outcome.message, 'ExtractorUnavailable');
    return outcome.drafts;
  }

  return {
    /**
     * Parses one document: extracts and splits the file, then embeds and bulk-indexes the chunks batch
     * by batch and marks the document `ready` once they are searchable. After each batch but the last
     * it heartbeats the count of chunks done; an attempt on another worker (after this one died) parses again (the
     * parse is deterministic) and carries on from there. Chunk ids come from document and position, so
     * a batch indexed twice overwrites itself.
     */
    async ingestDocument(ref: DocumentRef): Promise<number> {
      const resumeAt = Number(activityInfo().heartbeatDetails ?? 0);
      const [doc, { embedder, dimension }] = await Promise.all([documentOrGone(ref), embedderOf(ref)]);
      const progress = createProgressReporter((fields) => documents.setProgress(doc._id, fields), QUIET_PROGRESS_MS);
      const startedAt = doc.started_at ?? new Date();
      const { parse } = parseOf(ref);
      const reparse = parse > 1;
      // The bulk request under way, if any: a cancelled attempt lets it land before cleaning up.
      let indexing: Promise<void> | undefined;
      try {
        progress.report({ ...(resumeAt === 0 ? { stage: 'extracting' as const } : {}), started_at: startedAt });
        const drafts = await whileHeartbeating(resumeAt, () => extractAndSplit(doc));

        // While one batch is being indexed the next is embedded: the two upstreams overlap.
        const embedFrom = (start: number) => startedEarly(embedBatch(embed, embedder, dimension, drafts.slice(start, start + batchSize)));
        let next = resumeAt < drafts.length ? embedFrom(resumeAt) : undefined;
        progress.report({ stage: 'embedding', chunks_total: drafts.length, token_count: drafts.reduce((sum, d) => sum + d.tokens, 0) });
        for (let start = resumeAt; next; start += batchSize) {
          const end = Math.min(start + batchSize, drafts.length);
          const vectors = await whileHeartbeating(start, () => next!);
          next = end < drafts.length ? embedFrom(end) : undefined;
          const chunks = drafts.slice(start, end).map((c, i) => indexedChunk(doc, parse, c, start + i, vectors[i]!));
          // The last batch returns once everything is searchable, so `ready` means searchable. A long
          // document refreshes the index itself: one refresh is a small share of its indexing work,
          // and it then need not wait up to a refresh interval. (A reparse's chunks become
          // searchable when they are published, below.)
          const searchable = next || reparse ? undefined : drafts.length > REFRESH_AFTER_BATCHES * batchSize ? 'now' : 'wait';
          indexing = chunkIndex.bulkIndex(dimension, chunks, { searchable });
          await whileHeartbeating(start, () => indexing!);
          indexing = undefined;
          if (next) {
            // Checked only now, so that no batch is still being indexed when a deleted document's
            // chunks are removed. (After the last batch the outcome's write finds a deleted document
            // gone, and it is checked then.)
            await stopIfDeleted(doc);
            // Batches are indexed in order, so every chunk before `end` is in. (After the last batch
            // the activity's completion says it all: no heartbeat, no progress write.)
            progress.report({ chunks_indexed: end });
            heartbeat(end);
          }
        }
        if (reparse) {
          // Only now do the new chunks answer, and the previous parse's leave the index.
          const ids = drafts.map((_, position) => chunkIdFor(doc._id, position, parse));
          await whileHeartbeating(drafts.length, () =>
            chunkIndex.publishParse(dimension, { tenantId: doc.tenant_id, docId: doc._id, parse }, ids),
          );
          await stopIfDeleted(doc);
        }
        if (!(await progress.stop())) await stopIfDeleted(doc);
        if (!(await documents.finish(doc._id, { ok: true, progress: { ...progress.latest, chunks_indexed: drafts.length } })))
          await stopIfDeleted(doc);
        const finishedAt = new Date();
        await outcomeEvents.submit('events', [
          documentParsedEvent(parseOf(ref), drafts.length, finishedAt.getTime() - startedAt.getTime(), finishedAt),
        ]);
        return drafts.length;
      } catch (err) {
        if (!isDocumentGone(err))
          await cleanUpAfter(indexing, doc).catch((cleanupErr: unknown) => {
            Context.current().log.warn('chunks of a parse that ended may be left in the index', {
              doc_id: doc._id,
              error: String(cleanupErr),
            });
          });
        // How far a failed parse got stays readable beside its reason.
        await progress.writeNow().catch(() => undefined);
        throw err;
      } finally {
        // No write starts once the attempt has ended; one that failed does not hide what ended it.
        await progress.stop().catch(() => undefined);
      }
    },

    /**
     * Records a failure and its reason (success is recorded by `ingestDocument`). Batches indexed
     * before the failure leave the index: a document whose first parse failed has no searchable
     * chunks, and one whose reparse failed keeps those of the last parse that succeeded.
     */
    async failDocument(ref: DocumentRef & { error: DocumentFailure }): Promise<void> {
      const { parse } = parseOf(ref);
      await chunkIndex.deleteWhere({ tenant_id: ref.tenantId, doc_id: ref.docId, ...(parse > 1 ? { parse } : {}) });
      if (await documents.finish(ref.docId, { ok: false, error: ref.error }))
        await eventLog.appendMany([documentFailedEvent(parseOf(ref), ref.error, new Date())]);
    },
  };
}
