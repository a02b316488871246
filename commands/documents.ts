import { type Client, isGrpcDeadlineError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../common/config';
import { conflict } from '../common/errors';
import type { DocumentChunk } from '../common/schemas/knowledge';
import { detectFormat } from '../knowledge/extract';
import type { ChunkIndex, ChunkSelection } from '../stores/chunk-index';
import { decodeCursor, encodeCursor, type Page, type PageRequest } from '../stores/pagination';
import { currentParse, type DocumentDoc, type DocumentStore, type NewDocument } from '../stores/documents';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';
import { ingestWorkflowId } from '../common/workflow-ids';
import type { IngestInput } from '../workflows/document-ingest';

/** A document's chunks list in position order. */
const CHUNK_ORDER = { position: 1 } as const;
import { checkParser } from './knowledge-bases';
import { boundedCalls } from './temporal-waits';
import { startDocumentIngest } from './workflow-starts';
import { taskQueueOf } from '../common/task-queues';

/** How long a reparse waits for the previous parse's workflow to close after it wrote the outcome. */
const CLOSING_PARSE_WAIT_MS = 5_000;

/** A file uploaded into a knowledge base, as the request carried it. */
export interface DocumentUpload {
  tenantId: string;
  kbId: string;
  /** The parser asked for; else the knowledge base's. */
  parserId?: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface DocumentCommandDeps {
  temporal: Client;
  config: Config;
  documents: DocumentStore;
  knowledgeBases: KnowledgeBaseStore;
  chunkIndex: ChunkIndex;
}

/**
 * Documents of knowledge bases: each parse (the upload's, each reparse) is its own workflow; deletes
 * stop it and take the chunks out.
 */
export function createDocumentCommands({ temporal, config, documents, knowledgeBases, chunkIndex }: DocumentCommandDeps) {
  /** Starts a parse of a document on the ingest queue, bounded by DOCUMENT_INGEST_TIMEOUT_MS from its first workflow task. */
  const startParse = (target: Pick<IngestInput, 'tenantId' | 'kbId' | 'docId' | 'parse'>, traceId: string) =>
    startDocumentIngest(
      temporal,
      taskQueueOf(config, 'ingest'),
      { ...target, timeoutMs: config.DOCUMENT_INGEST_TIMEOUT_MS, timeBoundAlways: true },
      traceId,
    );

  /**
   * Stops the document's current parse if it still runs. Its activity notices at its next batch or
   * heartbeat and removes whatever it indexed after the delete (activities/knowledge.ts).
   */
  async function stopIngest(doc: DocumentDoc): Promise<void> {
    try {
      await temporal.workflow.getHandle(ingestWorkflowId(doc._id, currentParse(doc))).terminate('document deleted');
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) && !/already completed|not found/i.test(String(err))) throw err;
    }
  }

  /**
   * Whether the workflow of the document's current parse is still open. A parse writes the
   * document's outcome just before its workflow closes, so a client that saw `ready` may ask at
   * once: a workflow still open is waited for a moment (less if the caller leaves) before the
   * reparse is refused.
   */
  async function parseStillRunning(doc: DocumentDoc, signal?: AbortSignal): Promise<boolean> {
    const handle = temporal.workflow.getHandle(ingestWorkflowId(doc._id, currentParse(doc)));
    try {
      if ((await handle.describe()).status.name !== 'RUNNING') return false;
    } catch (err) {
      // Past the namespace's retention the parse is forgotten, and long over.
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
    // Closed, however it ended, unless the wait ran out (or its caller left) first.
    return boundedCalls(temporal, { signal, deadline: Date.now() + CLOSING_PARSE_WAIT_MS }, () => handle.result()).then(
      () => false,
      (err: unknown) => signal?.aborted === true || isGrpcDeadlineError(err),
    );
  }

  const parseConflict = (doc: DocumentDoc) =>
    conflict(`document ${doc._id} is being parsed; reparse it once it is ready or failed`, {
      doc_id: doc._id,
      status: doc.status,
      parse: currentParse(doc),
    });

  async function remove(tenantId: string, docId: string): Promise<void> {
    // The record first: from then on the parse's activity sees the document gone.
    const doc = await documents.delete(tenantId, docId);
    await stopIngest(doc);
    await chunkIndex.deleteWhere({ tenant_id: tenantId, doc_id: docId });
  }

  return {
    /**
     * An upload, whole: into the tenant's knowledge base (10004 for another's), split with the named
     * parser or the base's (10001 naming `body.parser_id` when unknown) and its chunking, its format
     * told from the bytes; stored, then its parse started. A parse that cannot start takes the upload back.
     */
    async upload(upload: DocumentUpload, traceId: string): Promise<DocumentDoc> {
      const kb = await knowledgeBases.getDoc(upload.tenantId, upload.kbId);
      const parserId = upload.parserId ?? kb.parser_id;
      checkParser(parserId, 'body.parser_id');
      const name = upload.fileName.slice(0, 255);
      const input: NewDocument = {
        tenantId: upload.tenantId,
        kbId: kb._id,
        name,
        contentType: upload.contentType,
        format: detectFormat(upload.bytes, name, upload.contentType) ?? null,
        parserId,
        chunkTokens: kb.chunk_tokens,
        overlapTokens: kb.overlap_tokens,
        bytes: upload.bytes,
      };
      const doc = await documents.create(input);
      try {
        await startParse({ tenantId: input.tenantId, kbId: input.kbId, docId: doc._id }, traceId);
      } catch (err) {
        await documents.delete(input.tenantId, doc._id).catch(() => undefined);
        throw err;
      }
      return doc;
    },

    remove,

    /**
     * Parses a document again: with `parserId` or its own parser, and the knowledge base's current
     * chunking. Refused with 10005 while a parse of it runs (the document `parsing`, or the
     * workflow of its last parse still closing); two reparses at once start one parse, the other is
     * 10005. The new parse's chunks stay hidden until it succeeds (see activities/knowledge.ts).
     * Returns the document as it now is (`parsing`, `queued`).
     */
    async reparse(
      tenantId: string,
      docId: string,
      { parserId }: { parserId?: string },
      traceId: string,
      signal?: AbortSignal,
    ): Promise<DocumentDoc> {
      if (parserId) checkParser(parserId, 'body.parser_id');
      const doc = await documents.getDoc(tenantId, docId);
      if (doc.status === 'parsing' || (await parseStillRunning(doc, signal))) throw parseConflict(doc);
      const kb = await knowledgeBases.getDoc(tenantId, doc.kb_id);
      const next = await documents.startReparse(doc, {
        parserId: parserId ?? doc.parser_id,
        chunkTokens: kb.chunk_tokens,
        overlapTokens: kb.overlap_tokens,
      });
      if (!next) throw parseConflict(doc);
      try {
        await startParse({ tenantId, kbId: doc.kb_id, docId, parse: currentParse(next) }, traceId);
      } catch (err) {
        // Another reparse got there first (a store without atomic compare-and-set let both through): its parse runs.
        if (err instanceof WorkflowExecutionAlreadyStartedError) throw parseConflict(next);
        await documents.undoReparse(doc).catch(() => undefined);
        throw err;
      }
      return next;
    },

    /**
     * One page of the document's chunks, by position: the chunks `chunk_count` counts. A ready
     * document's are its last parse's; while a reparse runs (or after it failed) the previous parse's,
     * which answer searches; otherwise (the upload's parse still running) those indexed so far.
     * Another tenant's document, or none: 10004.
     */
    async chunks(tenantId: string, docId: string, { page, page_size, after }: PageRequest): Promise<Page<DocumentChunk>> {
      const doc = await documents.getDoc(tenantId, docId);
      const parse = currentParse(doc);
      const selection: ChunkSelection =
        doc.status !== 'ready' && doc.previous_chunk_count !== null && doc.previous_chunk_count !== undefined
          ? { besides: parse }
          : { parse };
      // Positions are dense from 0, so a page is a range of them: a cursor is the last position shown.
      const from = after === undefined ? (page - 1) * page_size : Number(decodeCursor(CHUNK_ORDER, after)[0]) + 1;
      const { items, total } = await chunkIndex.documentChunks({ tenantId, docId, selection, from, size: page_size });
      const last = items[items.length - 1];
      return {
        items,
        ...(after === undefined ? { total } : {}),
        page: after === undefined ? page : 1,
        page_size,
        next_cursor: last && last.position + 1 < total ? encodeCursor(CHUNK_ORDER, last) : null,
      };
    },

    /** Documents first, so a failure part-way leaves a knowledge base that can be deleted again. */
    async removeKnowledgeBase(tenantId: string, kbId: string): Promise<void> {
      await knowledgeBases.getDoc(tenantId, kbId);
      for (;;) {
        const page = await documents.list(tenantId, kbId, { page: 1, page_size: 100 });
        if (page.items.length === 0) break;
        for (const doc of page.items) await remove(tenantId, doc.doc_id);
      }
      await chunkIndex.deleteWhere({ tenant_id: tenantId, kb_id: kbId });
      await knowledgeBases.delete(tenantId, kbId);
    },
  };
}
