import { MAX_FILE_TEXT_BYTES } from '../common/schemas/files';
import type { Block, ExtractedDocument } from './document-model';
import { detectFormat, extractDocument, type ZipLimits } from './extract';
import { failureOutcome, type ParseFailed, type ParseUnavailable } from './parse-document';
import { countTokens } from '../common/tokens';

/** An attachment upload (POST /v1/files) to read as text. */
export interface AttachmentJob {
  bytes: Uint8Array;
  name: string;
  contentType?: string;
  /** Set by the pool from the configuration; the defaults when absent. */
  zipLimits?: ZipLimits;
}

/** The attachment's text as completions read it, or why it cannot be read (plain data: it crosses a thread boundary). */
export type AttachmentOutcome =
  { kind: 'text'; format: string; text: string; truncated: boolean; tokenCount: number } | ParseFailed | ParseUnavailable;

function blockText(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(Math.min(6, Math.max(1, block.level)))} ${block.text.trim()}`;
    case 'list-item':
      return `- ${block.text.trim()}`;
    case 'code':
      return `\`\`\`\n${block.text}\n\`\`\``;
    case 'table': {
      const rows = block.rows
        .filter((row) => row.some((cell) => cell.trim()))
        .map((row) => row.map((cell) => cell.replace(/\s+/g, ' ').trim()).join(' | '));
      return (block.name ? [block.name, ...rows] : rows).join('\n');
    }
    default:
      return block.text.trim();
  }
}

/** The extracted blocks as Markdown-like text a model reads: headings marked, list items together, table rows as `a | b`. */
function documentText(doc: ExtractedDocument): string {
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
function capUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // Back off continuation bytes (10xxxxxx) so the cut falls at the start of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/** Extracts, cuts at MAX_FILE_TEXT_BYTES and counts the attachment's text; never throws. */
export async function extractAttachment(job: AttachmentJob): Promise<AttachmentOutcome> {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  try {
    const extracted = await extractDocument(bytes, job.name, job.contentType, { zipLimits: job.zipLimits });
    const { text, truncated } = capUtf8(documentText(extracted), MAX_FILE_TEXT_BYTES);
    // extractDocument succeeded, so the format was recognised.
    return { kind: 'text', format: detectFormat(bytes, job.name, job.contentType)!, text, truncated, tokenCount: countTokens(text) };
  } catch (err) {
    return failureOutcome(err);
  }
}
