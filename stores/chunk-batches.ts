import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { ChunkDraft } from '../knowledge/document-model';
import { isDuplicateKey } from './mongo';

/** A parsed chunk as stored: the draft plus its stable id and position in the document. */
export interface StoredChunk extends ChunkDraft {
  chunk_id: string;
  position: number;
}

interface ChunkBatchDoc {
  _id: string;
  tenant_id: string;
  doc_id: string;
  batch: number;
  chunks: StoredChunk[];
}

/** Same document, same position: same id. A re-run after a crash overwrites instead of adding. */
export const chunkIdFor = (docId: string, position: number) =>
  `chk_${createHash('sha256').update(`${docId}\u0000${position}`).digest('hex').slice(0, 24)}`;

const batchIdFor = (docId: string, batch: number) => `${docId}:${batch}`;

/**
 * A document's parsed chunks, kept in the database in fixed-size batches between parsing and
 * indexing: the embedding activities read one batch by id (no scans), and the index can be rebuilt
 * from them. The batch id comes from the document and batch number, so a re-run stores nothing twice.
 */
export function createChunkBatchStore(db: Db) {
  const batches = db.collection<ChunkBatchDoc>('document_chunk_batches');

  return {
    async store(tenantId: string, docId: string, drafts: ChunkDraft[], batchSize: number): Promise<number> {
      const docs: ChunkBatchDoc[] = [];
      for (let start = 0, batch = 0; start < drafts.length; start += batchSize, batch++) {
        docs.push({
          _id: batchIdFor(docId, batch),
          tenant_id: tenantId,
          doc_id: docId,
          batch,
          chunks: drafts.slice(start, start + batchSize).map((d, i) => ({ ...d, chunk_id: chunkIdFor(docId, start + i), position: start + i })),
        });
      }
      for (const doc of docs) {
        try {
          await batches.insertOne(doc);
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return docs.length;
    },

    async read(docId: string, batch: number): Promise<StoredChunk[]> {
      return (await batches.findOne({ _id: batchIdFor(docId, batch) }))?.chunks ?? [];
    },

    async removeDocument(docId: string): Promise<void> {
      await batches.deleteMany({ doc_id: docId });
    },
  };
}

export type ChunkBatchStore = ReturnType<typeof createChunkBatchStore>;
