import type { Db } from 'mongodb';
import { invalid, notFound } from '../common/errors';
import { newId } from '../common/ids';
import { type FileInfo, MAX_FILE_TEXT_BYTES, TEXT_PREVIEW_CHARS } from '../common/schemas/files';
import { type Block, type ExtractedDocument, ExtractionError } from '../knowledge/document-model';
import { detectFormat, extractDocument } from '../knowledge/extract';
import { countTokens } from '../knowledge/tokens';

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

export interface NewFile {
  tenantId: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface FileText {
  file_id: string;
  name: string;
  text: string;
  token_count: number;
}

function blockText(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(Math.min(6, Math.max(1, block.level)))} ${block.text.trim()}`;
    case 'list-item':
      return `- ${block.text.trim()}`;
    case 'code':
      return `\`\`\`\n${block.text}\n\`\`\``;
    case 'table': {
      const rows = block.rows.filter((row) => row.some((cell) => cell.trim())).map((row) => row.map((cell) => cell.replace(/\s+/g, ' ').trim()).join(' | '));
      return (block.name ? [block.name, ...rows] : rows).join('\n');
    }
    default:
      return block.text.trim();
  }
}

/** The extracted blocks as Markdown-like text a model reads: headings marked, list items together, table rows as `a | b`. */
export function documentText(doc: ExtractedDocument): string {
  let text = '';
  let previous: Block | undefined;
  for (const block of doc.blocks) {
    const part = blockText(block);
    if (!part.trim()) continue;
    if (previous) text += previous.kind === 'list-item' && block.kind === 'list-item' ? '\n' : '\n\n';
    text += part;
    previous = block;
  }
  return text;
}

/** The longest start of `text` within `maxBytes` of UTF-8, cut between characters. */
export function capUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so the cut falls at the start of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/**
 * Places where cl100k's pre-tokenizer always splits, so counts of the pieces between them add up to
 * the count of the whole: after a line break that a non-space follows, and before a space that sits
 * between a non-space and a letter (the space starts the next word's token).
 */
const TOKEN_BOUNDARY = /\n(?=\S)|(?<=\S)(?= \p{L})/gu;

/**
 * Tokens of a long text counted in pieces with a turn of the event loop between them, so a 2 MB
 * attachment does not stall every other request of the API process for seconds.
 */
async function countTokensInPieces(text: string, pieceChars = 32 * 1024): Promise<number> {
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.length;
    if (start + pieceChars < text.length) {
      TOKEN_BOUNDARY.lastIndex = start + pieceChars;
      const found = TOKEN_BOUNDARY.exec(text);
      if (found) end = found.index + found[0].length;
    }
    total += countTokens(text.slice(start, end));
    start = end;
    if (start < text.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
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

/**
 * Attachment files: uploaded once, read as text by completions. Only the extracted text is kept
 * (the bytes are not), read back by `_id` only.
 */
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
    collection: files,

    /**
     * Extracts the file's text with the knowledge-base extractors and stores it. A file that cannot
     * be read (unsupported, encrypted, corrupt, empty) is refused with 10001 naming the reason.
     */
    async create(input: NewFile): Promise<FileInfo> {
      let extracted: ExtractedDocument;
      try {
        extracted = await extractDocument(input.bytes, input.name, input.contentType);
      } catch (err) {
        if (err instanceof ExtractionError) throw invalid(`body.file: ${err.message}`, { field: 'body.file', reason: err.reason });
        throw err;
      }
      const { text, truncated } = capUtf8(documentText(extracted), MAX_FILE_TEXT_BYTES);
      const doc: FileDoc = {
        _id: newId('fil'),
        tenant_id: input.tenantId,
        name: input.name,
        content_type: input.contentType,
        // extractDocument succeeded, so the format was recognised.
        format: detectFormat(input.bytes, input.name, input.contentType)!,
        size_bytes: input.bytes.length,
        text,
        truncated,
        token_count: await countTokensInPieces(text),
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
