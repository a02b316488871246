import { ApplicationFailure } from '@temporalio/activity';
import type { EventLog } from '../stores/event-log';
import { presentEvent } from '../stores/event-log';
import type { DeliveryEnvelope, NewDelivery, WebhookStore } from '../stores/webhooks';
import { postDelivery } from '../upstream/webhook-post';

export interface AttemptInput {
  deliveryId: string;
  tenantId: string;
  subscriptionId: string;
  envelope: DeliveryEnvelope;
  attempt: number;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** How long a worker reuses a subscription's URL and secret by default: rotations and edits apply within this. */
const TARGET_CACHE_MS = 2_000;

export interface WebhookActivityDeps {
  webhooks: WebhookStore;
  eventLog: EventLog;
  allowPrivateUrls: boolean;
  targetCacheMs?: number;
}

/** Activities that reach subscribers' HTTP endpoints (and record what happened in MongoDB). */
export function createWebhookActivities({ webhooks, eventLog, allowPrivateUrls, targetCacheMs = TARGET_CACHE_MS }: WebhookActivityDeps) {
  const targets = new Map<string, { value: Awaited<ReturnType<WebhookStore['target']>>; until: number }>();
  async function target(tenantId: string, subscriptionId: string) {
    const key = `${tenantId}|${subscriptionId}`;
    const hit = targets.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const value = await webhooks.target(tenantId, subscriptionId);
    if (targets.size > 10_000) targets.clear();
    targets.set(key, { value, until: Date.now() + targetCacheMs });
    return value;
  }

  return {
    /**
     * One attempt, sent unless the delivery log holds it already: a worker that died after recording
     * it (or the dispatcher's batch, which made the first attempt before this workflow was started to
     * take it over) is not sent again, and the recorded outcome is the answer.
     */
    async attemptDelivery({ deliveryId, tenantId, subscriptionId, envelope, attempt }: AttemptInput): Promise<AttemptResult> {
      const recorded = await webhooks.recordedAttempt(deliveryId, attempt);
      if (recorded) return { ok: recorded.ok, statusCode: recorded.status_code, error: recorded.error };
      const destination = await target(tenantId, subscriptionId);
      if (!destination) throw ApplicationFailure.nonRetryable(`subscription ${subscriptionId} was deleted`, 'SubscriptionGone');
      const posted = await postDelivery(destination, { deliveryId, envelope, attempt }, { allowPrivateUrls });
      await webhooks.recordAttempt(deliveryId, {
        attempt,
        at: new Date(posted.startedAt).toISOString(),
        ok: posted.ok,
        status_code: posted.statusCode,
        latency_ms: posted.latencyMs,
        error: posted.error,
      });
      return { ok: posted.ok, statusCode: posted.statusCode, error: posted.error };
    },

    async deadLetter({ deliveryId }: { deliveryId: string }): Promise<void> {
      await webhooks.markDead(deliveryId);
    },

    /**
     * One page of a historical replay: the tenant's events in the range (oldest first), each paired
     * with the subscriptions that ask for it now, recorded as deliveries of this replay.
     */
    async prepareReplayPage(input: ReplayPageInput): Promise<ReplayPage> {
      const { since, until, after, limit } = input;
      const docs = await eventLog.range(input.tenantId, { since, until, names: input.events, after, limit });
      const wanted: NewDelivery[] = [];
      for (const doc of docs) {
        const envelope = presentEvent(doc);
        const subscriptionIds = await webhooks.matching(input.tenantId, doc.event, new Date(), input.subscriptionId);
        for (const subscriptionId of subscriptionIds)
          wanted.push({ tenantId: input.tenantId, subscriptionId, envelope, replayId: input.replayId });
      }
      const ids = await webhooks.ensureDeliveries(wanted);
      const deliveries = wanted.map((d, i) => ({ ...ids[i]!, subscriptionId: d.subscriptionId, envelope: d.envelope }));
      const last = docs[docs.length - 1];
      return {
        deliveries,
        next: docs.length === input.limit && last ? { timestamp: last.timestamp.toISOString(), eventId: last._id } : undefined,
      };
    },
  };
}

export interface ReplayPageInput {
  replayId: string;
  tenantId: string;
  since: string;
  until: string;
  events?: string[];
  subscriptionId?: string;
  /** The last event of the previous page (timestamp, id), or none for the first page. */
  after?: { timestamp: string; eventId: string };
  limit: number;
}

export interface ReplayPage {
  deliveries: Array<{ deliveryId: string; workflowId: string; subscriptionId: string; envelope: DeliveryEnvelope }>;
  next?: { timestamp: string; eventId: string };
}
