/** How the Knowledge pages word sizes, statuses, parse stages and failure reasons. */
import type { Document, DocumentProgress, DocumentStatus } from '@combo/client';
import type { Tone } from '../../components/StatusBadge';

const bytesFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${bytesFormat.format(bytes / 1024)} KB`;
  return `${bytesFormat.format(bytes / 1024 / 1024)} MB`;
}

export const formatScore = (value: number): string => value.toFixed(3);

export const STATUS_TONE: Record<DocumentStatus, Tone> = { parsing: 'info', ready: 'ok', failed: 'danger' };

const STAGES: Record<DocumentProgress['stage'], string> = {
  queued: 'queued for parsing',
  extracting: 'extracting the text',
  embedding: 'embedding and indexing',
  done: 'done',
  failed: 'failed',
};

/** The parse's stage and counts in words ("embedding and indexing: 12 of 40 chunks"). */
export function parseProgressText(progress: DocumentProgress): string {
  const stage = STAGES[progress.stage] ?? progress.stage;
  if (progress.chunks_total === null) return stage;
  return `${stage}: ${progress.chunks_indexed} of ${progress.chunks_total} chunks`;
}

/** What a failure reason means, for the uploader. */
export const REASONS: Record<NonNullable<Document['error']>['reason'], string> = {
  unsupported: 'not a supported format',
  encrypted: 'password-protected',
  corrupt: 'the file cannot be read',
  empty: 'no text to index',
  too_large: 'too large to unpack or read',
  embedding_failed: 'the embedding model refused it',
  indexing_failed: 'the index stayed unavailable',
  timed_out: 'parsing took too long',
};

/** The formats the service reads, for the file picker (a drop may bring anything: the service says what it cannot read). */
export const ACCEPTED_FILES = '.txt,.text,.md,.markdown,.html,.htm,.pdf,.docx,.csv,.xlsx,.json,.jsonl';
