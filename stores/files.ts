import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import { type FileInfo, TEXT_PREVIEW_CHARS } from '../common/schemas/files';

interface FileDoc {
  _id: string;
  tenant_id: string;
  name: string;
  content_type: string;
  format: string;
  size_bytes: number;
  text: string;
  truncated: boolean;
  token_count: number;
  created_at: Date;
}

/** An attachment's extracted text, as it is kept (the bytes are not). */
export interface NewFile {
  tenantId: string;
  name: string;
  contentType: string;
  format: string;
  sizeBytes: number;
  text: string;
  truncated: boolean;
  tokenCount: number;
}

export interface FileText {
  file_id: string;
  name: string;
  text: string;
  token_count: number;
}

const present = (d: FileDoc): FileInfo => ({
  file_id: d._id,
  name: d.name,
  content_type: d.content_type,
  format: d.format,
  size_bytes: d.size_bytes,
  token_count: d.token_count,
  truncated: d.truncated,
  text_preview: d.text.slice(0, TEXT_PREVIEW_CHARS),
  created_at: d.created_at.toISOString(),
});

/** Attachment files: uploaded once, read as text by completions, read back by `_id` only. */
export function createFileStore(db: Db) {
  const files = db.collection<FileDoc>('files');

  async function getDoc(tenantId: string, fileId: string): Promise<FileDoc> {
    const doc = await files.findOne({ _id: fileId, tenant_id: tenantId });
    if (!doc) throw notFound('file', fileId);
    return doc;
  }

  /** One lookup by `_id` per file, not `$in`: FerretDB answers `$in` by scanning the collection. */
  async function findEach(tenantId: string, fileIds: string[], projection: Partial<Record<keyof FileDoc, 1>>): Promise<FileDoc[]> {
    const docs = await Promise.all(fileIds.map((id) => files.findOne({ _id: id, tenant_id: tenantId }, { projection })));
    const missing = docs.findIndex((d) => !d);
    if (missing >= 0) throw notFound('file', fileIds[missing]!);
    return docs as FileDoc[];
  }

  return {
    async create(input: NewFile): Promise<FileInfo> {
      const doc: FileDoc = {
        _id: newId('fil'),
        tenant_id: input.tenantId,
        name: input.name,
        content_type: input.contentType,
        format: input.format,
        size_bytes: input.sizeBytes,
        text: input.text,
        truncated: input.truncated,
        token_count: input.tokenCount,
        created_at: new Date(),
      };
      await files.insertOne(doc);
      return present(doc);
    },

    get: async (tenantId: string, fileId: string): Promise<FileInfo> => present(await getDoc(tenantId, fileId)),

    async delete(tenantId: string, fileId: string): Promise<void> {
      const { deletedCount } = await files.deleteOne({ _id: fileId, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('file', fileId);
    },

    /** Checks that every id is a file of the tenant, without reading the texts; the first unknown or foreign id is a 10004. */
    async assertExist(tenantId: string, fileIds: string[]): Promise<void> {
      await findEach(tenantId, fileIds, { _id: 1 });
    },

    /** The texts of the tenant's files, in the order asked; the first unknown or foreign id is a 10004. */
    async getTexts(tenantId: string, fileIds: string[]): Promise<FileText[]> {
      const docs = await findEach(tenantId, fileIds, { name: 1, text: 1, token_count: 1 });
      return docs.map((d) => ({ file_id: d._id, name: d.name, text: d.text, token_count: d.token_count }));
    },
  };
}

export type FileStore = ReturnType<typeof createFileStore>;
