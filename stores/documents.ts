import { GridFSBucket, type Db } from 'mongodb';
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
  chunk_count: d.status === 'ready' ? (d.chunks_total ?? 0) : d.chunks_indexed,
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

/**
 * Uploaded documents: the record in `documents`, the bytes in GridFS (`document_files`) under the
 * same id, so any worker can read them and nothing lives on an API process's disk.
 */
export function createDocumentStore(db: Db) {
  const documents = db.collection<DocumentDoc>('documents');
  const files = new GridFSBucket(db, { bucketName: 'document_files' });

  async function removeFile(docId: string): Promise<void> {
    try {
      await files.delete(docId as never);
    } catch (err) {
      if (!/not found|FileNotFound/i.test(String(err))) throw err;
    }
  }

  async function getDoc(tenantId: string, docId: string): Promise<DocumentDoc> {
    const doc = await documents.findOne({ _id: docId, tenant_id: tenantId });
    if (!doc) throw notFound('document', docId);
    return doc;
  }

  return {
    collection: documents,
    getDoc,

    /** Stores the bytes, then the record; a failed record write removes the bytes again. */
    async create(input: NewDocument): Promise<DocumentDoc> {
      const id = newId('doc');
      await new Promise<void>((resolve, reject) => {
        const upload = files.openUploadStreamWithId(id as never, input.name, {
          metadata: { tenant_id: input.tenantId, kb_id: input.kbId, content_type: input.contentType },
        });
        upload.once('finish', () => resolve());
        upload.once('error', reject);
        upload.end(input.bytes);
      });
      const now = new Date();
      const doc: DocumentDoc = {
        _id: id,
        tenant_id: input.tenantId,
        kb_id: input.kbId,
        name: input.name,
        content_type: input.contentType,
        format: input.format,
        size_bytes: input.bytes.length,
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
      };
      try {
        await documents.insertOne(doc);
      } catch (err) {
        await removeFile(id).catch(() => undefined);
        throw err;
      }
      return doc;
    },

    get: async (tenantId: string, docId: string) => presentDocument(await getDoc(tenantId, docId)),

    list: (tenantId: string, kbId: string, query: PageRequest & { status?: KnowledgeDocument['status'] }) =>
      findPage(documents, { tenant_id: tenantId, kb_id: kbId, ...(query.status ? { status: query.status } : {}) }, query, presentDocument),

    async readFile(docId: string): Promise<Buffer> {
      const parts: Buffer[] = [];
      for await (const part of files.openDownloadStream(docId as never)) parts.push(part as Buffer);
      return Buffer.concat(parts);
    },

    /** Progress writes carry the whole new state, so a retried activity writes the same values again. */
    async setProgress(docId: string, fields: Partial<Pick<DocumentDoc, 'stage' | 'chunks_total' | 'chunks_indexed' | 'token_count' | 'started_at'>>) {
      await documents.updateOne({ _id: docId, status: 'parsing' }, { $set: { ...fields, updated_at: new Date() } });
    },

    /** The parse's outcome; a success records its final chunk count in the same write. */
    async finish(docId: string, outcome: { ok: true; chunksIndexed: number } | { ok: false; error: DocumentFailure }) {
      const now = new Date();
      await documents.updateOne(
        { _id: docId },
        {
          $set: outcome.ok
            ? { chunks_indexed: outcome.chunksIndexed, status: 'ready', stage: 'done', error: null, finished_at: now, updated_at: now }
            : { status: 'failed', stage: 'failed', error: outcome.error, finished_at: now, updated_at: now },
        },
      );
    },

    /** Removes the record and the bytes (the caller removes chunks from the index). */
    async delete(tenantId: string, docId: string): Promise<void> {
      const { deletedCount } = await documents.deleteOne({ _id: docId, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('document', docId);
      await removeFile(docId);
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;
