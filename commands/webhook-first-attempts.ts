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
 * A write of fewer records than this first waits GROUP_WAIT_MS for more: the store's cost is mostly
 * per write (FerretDB: tens of ms for one record or a hundred), so fast answers are written in few groups.
 */
const GROUP_MIN = 64;
const GROUP_WAIT_MS = 25;

/**
 * Writes attempt records as they come, many per write: each write takes everything answered while
 * the previous one ran (and during a short wait when that is little), so an answered attempt waits
 * for at most one write and GROUP_WAIT_MS before its own. record() resolves once the write holding
 * that record went through (and rejects if it failed).
 */
function groupedRecorder(webhooks: WebhookStore) {
  let waiting: Array<{ entry: AttemptRecord; written: () => void; failed: (err: unknown) => void }> = [];
  let writing: Promise<void> | null = null;
  const writeAll = async () => {
    try {
      while (waiting.length > 0) {
        if (waiting.length < GROUP_MIN) await new Promise((resolve) => setTimeout(resolve, GROUP_WAIT_MS));
        const group = waiting;
        waiting = [];
        try {
          await webhooks.recordFirstAttempts(group.map((w) => w.entry));
          for (const w of group) w.written();
        } catch (err) {
          for (const w of group) w.failed(err);
        }
      }
    } finally {
      writing = null;
    }
  };
  return {
    record(entry: AttemptRecord): Promise<void> {
      const written = new Promise<void>((resolve, reject) => waiting.push({ entry, written: resolve, failed: reject }));
      writing ??= writeAll();
      return written;
    },
  };
}

export interface FirstAttemptOptions {
  webhooks: WebhookStore;
  allowPrivateUrls: boolean;
  /**
   * No attempt starts after this time (epoch ms): the batch's claim must not outlive the takeover
   * (WEBHOOK_BATCH_TAKEOVER_MS), or another dispatcher would send the same first attempt.
   */
  startBy: number;
  /** Called once a failed first attempt is in the delivery log (its retries start there, without waiting for the rest of the batch). */
  onFailed: (delivery: FirstAttempt) => Promise<void>;
}

/**
 * The first attempts of a batch of deliveries the caller claimed, side by side (at most
 * FIRST_ATTEMPT_CONCURRENCY in flight, each within the consumer's 2 s deadline), each recorded in
 * the delivery log with its attempt as soon as it is answered (grouped inserts); a failed one is
 * handed to `onFailed` once recorded. Resolves when every attempt is recorded and handed on, with
 * the deliveries left unattempted at `startBy` and those of a deleted subscription (not attempted,
 * as a delivery workflow drops them): the caller records both.
 */
export async function makeFirstAttempts(
  batch: FirstAttempt[],
  { webhooks, allowPrivateUrls, startBy, onFailed }: FirstAttemptOptions,
): Promise<{ unstarted: FirstAttempt[]; dropped: FirstAttempt[] }> {
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
  // Each settles to its failure or null at once: a failed write must not be an unhandled rejection while lanes run.
  const handedOn: Array<Promise<Error | null>> = [];
  const dropped: FirstAttempt[] = [];
  let next = 0;
  const lane = async () => {
    while (next < batch.length && Date.now() < startBy) {
      const delivery = batch[next++]!;
      const target = targets.get(`${delivery.tenantId}|${delivery.subscriptionId}`);
      if (!target) {
        dropped.push(delivery);
        continue;
      }
      const posted = await postDelivery(target, { ...delivery, attempt: 1 }, { allowPrivateUrls });
      const recorded = recorder.record({
        delivery: { tenantId: delivery.tenantId, subscriptionId: delivery.subscriptionId, envelope: delivery.envelope },
        attempt: {
          attempt: 1,
          at: new Date(posted.startedAt).toISOString(),
          ok: posted.ok,
          status_code: posted.statusCode,
          latency_ms: posted.latencyMs,
          error: posted.error,
        },
      });
      handedOn.push(
        (posted.ok ? recorded : recorded.then(() => onFailed(delivery))).then(
          () => null,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_CONCURRENCY, batch.length) }, lane));
  // Every record written and every retry started; else the round fails (its events stay queued, settled again next round).
  const failure = (await Promise.all(handedOn)).find((err) => err !== null);
  if (failure) throw failure;
  return { unstarted: batch.slice(next), dropped };
}
