import { type ChunkDraft, ExtractionError, type ParserOptions } from './document-model';
import { extractDocument, ExtractorUnavailableError, type ZipLimits } from './extract';
import { getParser } from './parsers';

/** An uploaded file and how to split it. */
export interface ParseJob {
  bytes: Uint8Array;
  name: string;
  contentType?: string;
  parserId: string;
  options: ParserOptions;
  /** Set by the pool from the configuration; the defaults when absent. */
  zipLimits?: ZipLimits;
}

/** A failure of the file itself, with the reason the uploader is shown. */
export type ParseFailed = { kind: 'failed'; reason: ExtractionError['reason']; message: string };
/** A failure on our side (an extraction engine that did not load), worth retrying. */
export type ParseUnavailable = { kind: 'unavailable'; message: string };

/**
 * What parsing a file came to, as plain data (it may cross a thread boundary, where error classes
 * are lost): its chunks; a failure of the file itself, with the reason the uploader is shown; or
 * `unavailable`, a failure on our side (an extraction engine that did not load) worth retrying.
 */
export type ParseOutcome = { kind: 'chunks'; drafts: ChunkDraft[] } | ParseFailed | ParseUnavailable;

/** What an extraction's exception comes to; anything unexpected is the file's (the same bytes would fail alike). */
export function failureOutcome(err: unknown): ParseFailed | ParseUnavailable {
  if (err instanceof ExtractorUnavailableError) return { kind: 'unavailable', message: err.message };
  if (err instanceof ExtractionError) return { kind: 'failed', reason: err.reason, message: err.message };
  const message = `the file could not be read: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300);
  return { kind: 'failed', reason: 'corrupt', message };
}

/** Extracts the file's text and splits it with the job's parser; never throws. */
export async function parseDocument(job: ParseJob): Promise<ParseOutcome> {
  const parser = getParser(job.parserId);
  if (!parser) return { kind: 'failed', reason: 'unsupported', message: `parser ${job.parserId} no longer exists` };
  let drafts: ChunkDraft[];
  try {
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    drafts = parser.parse(await extractDocument(bytes, job.name, job.contentType, { zipLimits: job.zipLimits }), job.options);
  } catch (err) {
    return failureOutcome(err);
  }
  drafts = drafts.filter((d) => d.content.trim().length > 0);
  if (drafts.length === 0) return { kind: 'failed', reason: 'empty', message: 'the document has no text to index' };
  return { kind: 'chunks', drafts };
}
