import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  patched,
  proxyActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DocumentFailure } from '../common/schemas/knowledge';
import { ownTimeBoundReached } from './own-time-bound';

export interface IngestInput {
  tenantId: string;
  kbId: string;
  docId: string;
  /** DOCUMENT_INGEST_TIMEOUT_MS; absent in runs started before the bound existed. */
  timeoutMs?: number;
  /**
   * The bound holds from the first workflow task without asking the `document-ingest-time-bound`
   * patch (a marker and a TemporalChangeVersion upsert per document otherwise): set since every
   * worker keeps the bound. Absent in runs from before: the patch decides.
   */
  timeBoundAlways?: boolean;
  /**
   * Which parse of the document this run is: 1 for the upload's, one more for every reparse (whose
   * chunks are staged until it succeeds). Absent in runs started before reparses existed: 1.
   */
  parse?: number;
}

export interface IngestOutcome {
  /** `deleted`: the document was removed while it was being parsed. */
  status: 'ready' | 'failed' | 'deleted';
  chunks: number;
  error?: DocumentFailure;
}

// One activity parses the whole document (extract, split, then embed and index batch by batch): each
// Temporal task costs the server and the worker more than a batch of small chunks does, and the
// chunks never need storing between steps. A file that cannot be read fails at once; an embedding
// upstream that is down is retried with backoff for about ten minutes; one that refuses the input
// is not retried. The heartbeat (after every batch but the last, and every few seconds while
// anything is in flight, parsing included) hands the work of a worker that died to another within
// seconds, resuming after the last batch it reported; a very large file takes long, hence the
// generous timeout. At the document's time bound the parse is cancelled (delivered with a heartbeat)
// and the failure written only once the activity has stopped, so no late `ready` overwrites it.
const { ingestDocument } = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '2 minutes',
    maximumAttempts: 8,
    nonRetryableErrorTypes: ['ExtractionFailed', 'EmbeddingRejected', 'DocumentGone'],
  },
});
const { failDocument } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Patch id of the document's own time bound (DOCUMENT_INGEST_TIMEOUT_MS). */
const INGEST_TIME_BOUND = 'document-ingest-time-bound';

function failureOf(err: unknown): DocumentFailure | 'gone' {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === 'DocumentGone') return 'gone';
    const detail = cause.details?.[0] as DocumentFailure | undefined;
    if (detail?.reason) return detail;
    if (cause.type === 'EmbeddingRejected') return { reason: 'embedding_failed', message: cause.message };
  }
  // Retries ran out on an infrastructure fault (the index, the database or the embedding upstream).
  const message = cause instanceof Error ? cause.message : 'unknown failure';
  return { reason: 'indexing_failed', message: message.slice(0, 300) };
}

/**
 * Parses one uploaded document into searchable chunks (the `ingestDocument` activity); a failure is
 * recorded on the document with its reason, and so is a parse still going at the document's time bound.
 */
export async function documentIngestWorkflow(input: IngestInput): Promise<IngestOutcome> {
  const bound = input.timeoutMs;
  try {
    // Runs started before the bound existed have no timer in their history.
    const chunks =
      bound !== undefined && (input.timeBoundAlways || patched(INGEST_TIME_BOUND))
        ? await CancellationScope.withTimeout(bound, () => ingestDocument(input))
        : await ingestDocument(input);
    return { status: 'ready', chunks };
  } catch (err) {
    const failure = ownTimeBoundReached(err)
      ? { reason: 'timed_out' as const, message: `the document was still being parsed after its time bound (${bound} ms)` }
      : failureOf(err);
    if (failure === 'gone') return { status: 'deleted', chunks: 0 };
    await failDocument({ ...input, error: failure });
    return { status: 'failed', chunks: 0, error: failure };
  }
}
