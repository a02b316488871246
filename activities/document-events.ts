import type { DocumentFailure } from '../common/schemas/knowledge';
import type { EventRecord } from '../common/events';
import { newEvent } from '../common/events';

/** The parse an outcome belongs to: 1 for the upload's own, n for the (n-1)th reparse. */
export interface ParseRef {
  tenantId: string;
  kbId: string;
  docId: string;
  parse: number;
}

// One outcome per parse: the fact key is the document and the parse's number, so a retried
// activity (or a second worker after a crash) records the same event id, which the log keeps once.
const parseKey = (ref: ParseRef) => `${ref.docId}:${ref.parse}`;

/** `document.parsed`: the parse ended with the document `ready`, its chunks searchable. */
export const documentParsedEvent = (ref: ParseRef, chunkCount: number, durationMs: number, at: Date): EventRecord =>
  newEvent(
    'document.parsed',
    ref.tenantId,
    parseKey(ref),
    { doc_id: ref.docId, kb_id: ref.kbId, chunk_count: chunkCount, duration_ms: durationMs, parse: ref.parse },
    at,
  );

/** `document.failed`: the parse ended with the document `failed`; `reason` is its `error.reason`. */
export const documentFailedEvent = (ref: ParseRef, failure: DocumentFailure, at: Date): EventRecord =>
  newEvent(
    'document.failed',
    ref.tenantId,
    parseKey(ref),
    { doc_id: ref.docId, kb_id: ref.kbId, reason: failure.reason, message: failure.message, parse: ref.parse },
    at,
  );
