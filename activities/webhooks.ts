import { ApplicationFailure } from '@temporalio/activity';
import { guardedFetch } from '../upstream/guarded-fetch';
import { UnsafeUrlError } from '../common/net/url-guard';
import { signPayload } from '../common/signature';
import type { EventLog } from '../stores/event-log';
import { presentEvent } from '../stores/event-log';
import type { DeliveryEnvelope, DeliveryTarget, NewDelivery, WebhookStore } from '../stores/webhooks';

/** The spec's consumer deadline: a 2xx must arrive within 2 seconds. */
const CONSUMER_DEADLINE_MS = 2_000;

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

function describeFailure(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${CONSUMER_DEADLINE_MS} ms`;
  if (err instanceof UnsafeUrlError) return `URL refused: ${e.message}`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? 'request failed';
}

/**
 * `sha256=<hex>` with the current secret; during a rotation's grace (checked now: a target read
 * earlier may be reused for a moment) also with the replaced one, `sha256=<new>,sha256=<old>`.
 */
function signatureHeader(target: DeliveryTarget, timestamp: string, body: string): string {
  const secrets = [
    target.secret,
    ...(target.previous && target.previous.validUntil.getTime() > Date.now() ? [target.previous.secret] : []),
  ];
  return secrets.map((secret) => signPayload(secret, timestamp, body)).join(',');
}

/** Activities that reach subscribers' HTTP endpoints (and record what happened in MongoDB). */
/** How long a worker reuses a subscription's URL and secret by default: rotations and edits apply within this. */
const TARGET_CACHE_MS = 2_000;

export interface WebhookActivityDeps {
  webhooks: WebhookStore;
  eventLog: EventLog;
  allowPrivateUrls: boolean;
  targetCacheMs?: number;
}

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
    async attemptDelivery({ deliveryId, tenantId, subscriptionId, envelope, attempt }: AttemptInput): Promise<AttemptResult> {
      const destination = await target(tenantId, subscriptionId);
      if (!destination) throw ApplicationFailure.nonRetryable(`subscription ${subscriptionId} was deleted`, 'SubscriptionGone');
      const body = JSON.stringify(envelope);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const started = Date.now();
      let statusCode: number | null = null;
      let error: string | null = null;
      if (!destination.enabled) {
        error = 'subscription disabled';
      } else {
        try {
          // The address is checked as the connection is made: no second lookup between check and request.
          const res = await guardedFetch(
            destination.url,
            {
              method: 'POST',
              redirect: 'manual',
              signal: AbortSignal.timeout(CONSUMER_DEADLINE_MS),
              headers: {
                'content-type': 'application/json',
                'user-agent': 'combo-webhooks/1',
                'x-combo-signature': signatureHeader(destination, timestamp, body),
                'x-combo-timestamp': timestamp,
                'x-combo-event-id': envelope.event_id,
                'x-combo-delivery-id': deliveryId,
                'x-combo-attempt': String(attempt),
              },
              body,
            },
            { allowPrivate: allowPrivateUrls },
          );
          statusCode = res.status;
          await res.body?.cancel();
          if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}`;
        } catch (err) {
          error = describeFailure(err);
        }
      }
      const ok = error === null;
      await webhooks.recordAttempt(deliveryId, {
        attempt,
        at: new Date(started).toISOString(),
        ok,
        status_code: statusCode,
        latency_ms: Date.now() - started,
        error,
      });
      return { ok, statusCode, error };
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
