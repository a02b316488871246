import { Webhook } from 'standardwebhooks';
import { UnsafeUrlError } from '../common/net/url-guard';
import type { DeliveryEnvelope } from '../common/events';
import type { WebhookSigning } from '../common/schemas/webhooks';
import { signPayload } from '../common/signature';
import { isStandardWebhooksSecret } from '../common/standard-webhooks-secret';
import { guardedFetch } from './guarded-fetch';

/** The spec's consumer deadline: a 2xx must arrive within 2 seconds. */
const CONSUMER_DEADLINE_MS = 2_000;

/** Where and how a delivery is sent (stores/webhooks.ts reads it from the subscription). */
export interface WebhookTarget {
  url: string;
  secret: string;
  /** The replaced secret during a rotation's grace: attempts until `validUntil` carry its signature too. */
  previous: { secret: string; validUntil: Date } | null;
  enabled: boolean;
  /** `standard_webhooks`: the Standard Webhooks headers too. */
  signing: WebhookSigning;
}

export interface PostedAttempt {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** When the attempt started (epoch ms) and how long it took. */
  startedAt: number;
  latencyMs: number;
}

function describeFailure(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${CONSUMER_DEADLINE_MS} ms`;
  if (err instanceof UnsafeUrlError) return `URL refused: ${e.message}`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? 'request failed';
}

/**
 * The secrets that sign an attempt: the current one; during a rotation's grace (checked now: a
 * target read earlier may be reused for a moment) also the replaced one.
 */
const signingSecrets = (target: WebhookTarget): string[] => [
  target.secret,
  ...(target.previous && target.previous.validUntil.getTime() > Date.now() ? [target.previous.secret] : []),
];

/** `sha256=<hex>` with each secret that signs now: `sha256=<new>,sha256=<old>` during a grace. */
function signatureHeader(target: WebhookTarget, timestamp: string, body: string): string {
  return signingSecrets(target)
    .map((secret) => signPayload(secret, timestamp, body))
    .join(',');
}

/**
 * The Standard Webhooks headers, signed by its maintained library: `webhook-id` is the event id (the
 * same on every attempt and replay, as the specification wants for deduplication), the timestamp is
 * X-Combo-Timestamp's, and `webhook-signature` holds `v1,<base64>` for each secret that signs now,
 * space-separated. A replaced secret not of the Standard Webhooks form (the subscription switched
 * during its grace) signs only X-Combo-Signature.
 */
function standardWebhooksHeaders(target: WebhookTarget, eventId: string, timestamp: string, body: string): Record<string, string> {
  const at = new Date(Number(timestamp) * 1000);
  const signatures = signingSecrets(target)
    .filter(isStandardWebhooksSecret)
    .map((secret) => new Webhook(secret).sign(eventId, at, body));
  return { 'webhook-id': eventId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') };
}

/**
 * One attempt of one delivery: the signed POST of its envelope, answered with a 2xx within the
 * consumer deadline or failed. An HTTP failure is an answer, never a thrown error.
 */
export async function postDelivery(
  target: WebhookTarget,
  { deliveryId, envelope, attempt }: { deliveryId: string; envelope: DeliveryEnvelope; attempt: number },
  { allowPrivateUrls }: { allowPrivateUrls: boolean },
): Promise<PostedAttempt> {
  const startedAt = Date.now();
  const done = (statusCode: number | null, error: string | null): PostedAttempt => ({
    ok: error === null,
    statusCode,
    error,
    startedAt,
    latencyMs: Date.now() - startedAt,
  });
  if (!target.enabled) return done(null, 'subscription disabled');
  const body = JSON.stringify(envelope);
  const timestamp = String(Math.floor(startedAt / 1000));
  try {
    // The address is checked as the connection is made: no second lookup between check and request.
    const res = await guardedFetch(
      target.url,
      {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(CONSUMER_DEADLINE_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'combo-webhooks/1',
          'x-combo-signature': signatureHeader(target, timestamp, body),
          'x-combo-timestamp': timestamp,
          'x-combo-event-id': envelope.event_id,
          'x-combo-delivery-id': deliveryId,
          'x-combo-attempt': String(attempt),
          ...(target.signing === 'standard_webhooks' ? standardWebhooksHeaders(target, envelope.event_id, timestamp, body) : {}),
        },
        body,
      },
      { allowPrivate: allowPrivateUrls },
    );
    await res.body?.cancel();
    return done(res.status, res.status < 200 || res.status > 299 ? `HTTP ${res.status}` : null);
  } catch (err) {
    return done(null, describeFailure(err));
  }
}
