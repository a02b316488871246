import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DocumentFailure } from '../common/schemas/knowledge';

export interface IngestInput {
  tenantId: string;
  kbId: string;
  docId: string;
}

export interface IngestOutcome {
  /** `deleted`: the document was removed while it was being parsed. */
  status: 'ready' | 'failed' | 'deleted';
  chunks: number;
  error?: DocumentFailure;
}

// Extraction and splitting is one CPU-bound step over the whole file; it is retried only for
// infrastructure faults (a file it cannot read fails at once, with the reason).
const { extractAndSplit } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumAttempts: 5, nonRetryableErrorTypes: ['ExtractionFailed', 'DocumentGone'] },
});
// One batch of chunks: embed, then bulk-index. An embedding upstream that is down is retried with
// backoff for about ten minutes; one that refuses the input is not retried. The heartbeat timeout
// hands the batch of a worker that died to another within seconds, not after the 5-minute limit.
const { embedAndIndexBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8, nonRetryableErrorTypes: ['EmbeddingRejected', 'DocumentGone'] },
});
const { finishDocument } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

function failureOf(err: unknown, stage: 'extract' | 'index'): DocumentFailure | 'gone' {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === 'DocumentGone') return 'gone';
    const detail = cause.details?.[0] as DocumentFailure | undefined;
    if (detail?.reason) return detail;
    if (cause.type === 'EmbeddingRejected') return { reason: 'embedding_failed', message: cause.message };
  }
  const message = cause instanceof Error ? cause.message : 'unknown failure';
  return stage === 'extract' ? { reason: 'corrupt', message } : { reason: 'indexing_failed', message: message.slice(0, 300) };
}

/**
 * Parses one uploaded document: extract and split (chunks stored in batches), then embed and
 * index batch by batch. Chunk ids are fixed by document and position and indexing overwrites by
 * id, so a worker lost mid-way resumes at the batch it was on and the index ends with each chunk once.
 */
export async function documentIngestWorkflow(input: IngestInput): Promise<IngestOutcome> {
  let split: { batches: number; chunks: number } | undefined;
  try {
    split = await extractAndSplit(input);
    for (let batch = 0; batch < split.batches; batch++) {
      await embedAndIndexBatch({ ...input, batch, last: batch === split.batches - 1 });
    }
  } catch (err) {
    const failure = failureOf(err, split ? 'index' : 'extract');
    if (failure === 'gone') return { status: 'deleted', chunks: 0 };
    await finishDocument({ ...input, error: failure });
    return { status: 'failed', chunks: 0, error: failure };
  }
  await finishDocument({ ...input, error: null });
  return { status: 'ready', chunks: split?.chunks ?? 0 };
}
