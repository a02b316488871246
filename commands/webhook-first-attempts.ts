import type { DeliveryEnvelope, WebhookStore } from '../stores/webhooks';
import { postDelivery } from '../upstream/webhook-post';

export interface FirstAttempt {
  deliveryId: string;
  workflowId: string;
  tenantId: string;
  subscriptionId: string;
  envelope: DeliveryEnvelope;
}

/** Requests of one batch in flight at once: with the 2 s consumer deadline, a batch of hanging receivers ends within (size / this) × 2 s. */
const FIRST_ATTEMPT_CONCURRENCY = 32;

type AttemptRecord = Parameters<WebhookStore['recordFirstAttempts']>[0][number];

/**
 * Writes attempt records as they come, many per write: each write takes everything answered while
 * the previous one ran, so an answered attempt waits for at most one write before its own.
 */
function groupedRecorder(webhooks: WebhookStore) {
  const waiting: AttemptRecord[] = [];
  let writing: Promise<void> | null = null;
  let failure: Error | null = null;
  const writeAll = async () => {
    try {
      while (waiting.length > 0) await webhooks.recordFirstAttempts(waiting.splice(0));
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error(String(err));
    } finally {
      writing = null;
    }
  };
  return {
    record(entry: AttemptRecord) {
      waiting.push(entry);
      writing ??= writeAll();
    },
    /** Resolves once every record is written; throws the first write's failure. */
    async flushed(): Promise<void> {
      while (writing) await writing;
      if (failure) throw failure;
    },
  };
}

/**
 * The first attempts of a batch of deliveries the caller claimed, side by side (at most
 * FIRST_ATTEMPT_CONCURRENCY in flight, each within the consumer's 2 s deadline), each recorded in
 * the delivery log as soon as it is answered (grouped writes). Returns the deliveries whose attempt
 * failed (for the retry schedule); those of a deleted subscription are neither attempted nor
 * returned, as a delivery workflow drops them.
 */
export async function makeFirstAttempts(
  batch: FirstAttempt[],
  { webhooks, allowPrivateUrls }: { webhooks: WebhookStore; allowPrivateUrls: boolean },
): Promise<FirstAttempt[]> {
  // One read of each subscription serves the whole batch (a rotation applies from the next batch on).
  const keys = [...new Set(batch.map((d) => `${d.tenantId}|${d.subscriptionId}`))];
  const targets = new Map(
    await Promise.all(
      keys.map(async (key) => {
        const [tenantId, subscriptionId] = key.split('|') as [string, string];
        return [key, await webhooks.target(tenantId, subscriptionId)] as const;
      }),
    ),
  );
  const recorder = groupedRecorder(webhooks);
  const failed: FirstAttempt[] = [];
  let next = 0;
  const lane = async () => {
    while (next < batch.length) {
      const delivery = batch[next++]!;
      const target = targets.get(`${delivery.tenantId}|${delivery.subscriptionId}`);
      if (!target) continue;
      const posted = await postDelivery(target, { ...delivery, attempt: 1 }, { allowPrivateUrls });
      recorder.record({
        deliveryId: delivery.deliveryId,
        attempt: {
          attempt: 1,
          at: new Date(posted.startedAt).toISOString(),
          ok: posted.ok,
          status_code: posted.statusCode,
          latency_ms: posted.latencyMs,
          error: posted.error,
        },
      });
      if (!posted.ok) failed.push(delivery);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_CONCURRENCY, batch.length) }, lane));
  await recorder.flushed();
  return failed;
}
