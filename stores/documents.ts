import { type Binary, type Db } from 'mongodb';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { DocumentFailure, KnowledgeDocument } from '../common/schemas/knowledge';
import { findPage, type PageRequest } from './pagination';

type Stage = KnowledgeDocument['progress']['stage'];

export interface DocumentDoc {
  _id: string;
  tenant_id: string;
  kb_id: string;
  name: string;
  content_type: string;
  format: string | null;
  size_bytes: number;
  /** How many `document_file_parts` hold the bytes. */
  file_parts: number;
  parser_id: string;
  chunk_tokens: number;
  overlap_tokens: number;
  status: KnowledgeDocument['status'];
  error: DocumentFailure | null;
  stage: Stage;
  chunks_total: number | null;
  chunks_indexed: number;
  token_count: number;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** The parse the status describes: 1 for the upload's, one more for every reparse. Absent on documents from before reparses: 1. */
  parse?: number;
  /**
   * Chunks of the last parse that succeeded while a later parse runs or after it failed: they stay
   * searchable until a parse succeeds again. null (or absent) when there are none besides the current parse's.
   */
  previous_chunk_count?: number | null;
}

/** Which parse the document is at (1 for documents from before reparses). */
export const currentParse = (d: Pick<DocumentDoc, 'parse'>): number => d.parse ?? 1;

/** The filter of a document still at parse `n` (documents from before reparses have no number: they are at 1). */
const atParse = (n: number) => (n === 1 ? { $or: [{ parse: 1 }, { parse: { $exists: false } }] } : { parse: n });

/** How a reparse changes the document: the parser and chunking it uses. */
export interface ReparseSettings {
  parserId: string;
  chunkTokens: number;
  overlapTokens: number;
}

/** Share of the work done: extraction counts for a tenth, embedding and indexing for the rest. */
function fractionDone(d: DocumentDoc): number {
  if (d.stage === 'done') return 1;
  if (d.stage === 'queued') return 0;
  if (d.stage === 'extracting' || !d.chunks_total) return 0.05;
  return Math.min(0.99, 0.1 + (0.9 * d.chunks_indexed) / d.chunks_total);
}

export const presentDocument = (d: DocumentDoc): KnowledgeDocument => ({
  doc_id: d._id,
  kb_id: d.kb_id,
  name: d.name,
  content_type: d.content_type,
  format: d.format,
  size_bytes: d.size_bytes,
  parser_id: d.parser_id,
  status: d.status,
  // While a reparse runs (or after it failed) the previous parse's chunks are the searchable ones.
  chunk_count: d.status === 'ready' ? (d.chunks_total ?? 0) : (d.previous_chunk_count ?? d.chunks_indexed),
  parse: currentParse(d),
  error: d.error,
  progress: {
    stage: d.stage,
    fraction: Number(fractionDone(d).toFixed(3)),
    chunks_total: d.chunks_total,
    chunks_indexed: d.chunks_indexed,
    token_count: d.token_count,
    started_at: d.started_at?.toISOString() ?? null,
    finished_at: d.finished_at?.toISOString() ?? null,
  },
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});

/** What a parse records as it goes; the final write carries it all again. */
export type DocumentProgress = Partial<Pick<DocumentDoc, 'stage' | 'chunks_total' | 'chunks_indexed' | 'token_count' | 'started_at'>>;

export interface NewDocument {
  tenantId: string;
  kbId: string;
  name: string;
  contentType: string;
  format: string | null;
  parserId: string;
  chunkTokens: number;
  overlapTokens: number;
  bytes: Buffer;
}

/** One slice of an uploaded file's bytes, well under any document size limit. */
interface FilePartDoc {
  _id: string;
  doc_id: string;
  n: number;
  data: Binary | Buffer;
}

export const FILE_PART_BYTES = 1024 * 1024;

const filePartId = (docId: string, n: number) => `${docId}.${n}`;

/**
 * Uploaded documents: the record in `documents`, the bytes in `document_file_parts` under ids
 * derived from the document's, so any worker can read them and nothing lives on an API process's
 * disk. Not GridFS: reading a GridFS file is a find on `files_id` sorted by `n`, which
 * FerretDB-on-PostgreSQL answers by scanning every stored file; a lookup by `_id` is an index hit on
 * MongoDB and FerretDB alike.
 */
export function createDocumentStore(db: Db) {
  const documents = db.collection<DocumentDoc>('documents');
  const fileParts = db.collection<FilePartDoc>('document_file_parts');

  async function removeFile(docId: string, parts: number): Promise<void> {
    await Promise.all(Array.from({ length: parts }, (_, n) => fileParts.deleteOne({ _id: filePartId(docId, n) })));
  }

  async function getDoc(tenantId: string, docId: string): Promise<DocumentDoc> {
    const doc = await documents.findOne({ _id: docId, tenant_id: tenantId });
    if (!doc) throw notFound('document', docId);
    return doc;
  }

  return {
    getDoc,

    /** The document, or null when it is gone (or another tenant's). */
    find: (tenantId: string, docId: string): Promise<DocumentDoc | null> => documents.findOne({ _id: docId, tenant_id: tenantId }),

    /** Whether the document still exists, whoever's it is. */
    exists: async (docId: string): Promise<boolean> => (await documents.findOne({ _id: docId }, { projection: { _id: 1 } })) !== null,

    /** Stores the bytes, then the record; a failed record write removes the bytes again. */
    async create(input: NewDocument): Promise<DocumentDoc> {
      const id = newId('doc');
      const parts = Math.max(1, Math.ceil(input.bytes.length / FILE_PART_BYTES));
      try {
        await fileParts.insertMany(
          Array.from({ length: parts }, (_, n) => ({
            _id: filePartId(id, n),
            doc_id: id,
            n,
            data: input.bytes.subarray(n * FILE_PART_BYTES, (n + 1) * FILE_PART_BYTES),
          })),
        );
      } catch (err) {
        await removeFile(id, parts).catch(() => undefined);
        throw err;
      }
      const now = new Date();
      const doc: DocumentDoc = {
        _id: id,
        tenant_id: input.tenantId,
        kb_id: input.kbId,
        name: input.name,
        content_type: input.contentType,
        format: input.format,
        size_bytes: input.bytes.length,
        file_parts: parts,
        parser_id: input.parserId,
        chunk_tokens: input.chunkTokens,
        overlap_tokens: input.overlapTokens,
        status: 'parsing',
        error: null,
        stage: 'queued',
        chunks_total: null,
        chunks_indexed: 0,
        token_count: 0,
        started_at: null,
        finished_at: null,
        created_at: now,
        updated_at: now,
        parse: 1,
        previous_chunk_count: null,
      };
      try {
        await documents.insertOne(doc);
      } catch (err) {
        await removeFile(id, parts).catch(() => undefined);
        throw err;
      }
      return doc;
    },

    get: async (tenantId: string, docId: string) => presentDocument(await getDoc(tenantId, docId)),

    list: (tenantId: string, kbId: string, query: PageRequest & { status?: KnowledgeDocument['status'] }) =>
      findPage(documents, { tenant_id: tenantId, kb_id: kbId, ...(query.status ? { status: query.status } : {}) }, query, presentDocument),

    async readFile(doc: Pick<DocumentDoc, '_id' | 'file_parts'>): Promise<Buffer> {
      const parts = await Promise.all(Array.from({ length: doc.file_parts }, (_, n) => fileParts.findOne({ _id: filePartId(doc._id, n) })));
      return Buffer.concat(
        parts.map((part, n) => {
          if (!part) throw new Error(`document ${doc._id} is missing part ${n} of its file`);
          return Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data.buffer);
        }),
      );
    },

    /**
     * Progress writes carry the whole new state, so a retried activity writes the same values again.
     * false: no document being parsed has that id (it was deleted).
     */
    async setProgress(docId: string, fields: DocumentProgress): Promise<boolean> {
      const { matchedCount } = await documents.updateOne(
        { _id: docId, status: 'parsing' },
        { $set: { ...fields, updated_at: new Date() } },
      );
      return matchedCount > 0;
    },

    /** The parse's outcome; a success records its whole progress in the same write. false: the document is gone. */
    async finish(
      docId: string,
      outcome: { ok: true; progress: DocumentProgress & { chunks_indexed: number } } | { ok: false; error: DocumentFailure },
    ): Promise<boolean> {
      const now = new Date();
      const { matchedCount } = await documents.updateOne(
        { _id: docId },
        {
          $set: outcome.ok
            ? {
                ...outcome.progress,
                status: 'ready',
                stage: 'done',
                error: null,
                finished_at: now,
                updated_at: now,
                previous_chunk_count: null,
              }
            : { status: 'failed', stage: 'failed', error: outcome.error, finished_at: now, updated_at: now },
        },
      );
      return matchedCount > 0;
    },

    /** Removes the record and the bytes (the caller removes chunks from the index); returns the record as it was. */
    async delete(tenantId: string, docId: string): Promise<DocumentDoc> {
      // No projection: FerretDB's findAndModify does not take one.
      const doc = await documents.findOneAndDelete({ _id: docId, tenant_id: tenantId });
      if (!doc) throw notFound('document', docId);
      await removeFile(docId, doc.file_parts);
      return doc;
    },

    /**
     * Moves a document that is not being parsed to its next parse (`parsing`, `queued`, no progress),
     * with the given parser and chunking. Conditional on the parse it was at: null when another
     * reparse (or a parse's end) changed it in the meantime. The chunks searchable now are counted in
     * `previous_chunk_count` until the new parse succeeds.
     */
    async startReparse(doc: DocumentDoc, settings: ReparseSettings): Promise<DocumentDoc | null> {
      const now = new Date();
      const changes = {
        parse: currentParse(doc) + 1,
        parser_id: settings.parserId,
        chunk_tokens: settings.chunkTokens,
        overlap_tokens: settings.overlapTokens,
        status: 'parsing' as const,
        error: null,
        stage: 'queued' as const,
        chunks_total: null,
        chunks_indexed: 0,
        token_count: 0,
        started_at: null,
        finished_at: null,
        updated_at: now,
        previous_chunk_count: doc.status === 'ready' ? (doc.chunks_total ?? 0) : (doc.previous_chunk_count ?? null),
      };
      const { matchedCount } = await documents.updateOne(
        { _id: doc._id, tenant_id: doc.tenant_id, status: { $ne: 'parsing' }, ...atParse(currentParse(doc)) },
        { $set: changes },
      );
      return matchedCount > 0 ? { ...doc, ...changes } : null;
    },

    /** A reparse whose workflow could not start: the document goes back to how it was, unless it moved on since. */
    async undoReparse(before: DocumentDoc): Promise<void> {
      const { _id, tenant_id, ...fields } = before;
      await documents.updateOne({ _id, tenant_id, parse: currentParse(before) + 1 }, { $set: { ...fields, parse: currentParse(before) } });
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;
