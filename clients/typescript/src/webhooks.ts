/**
 * Webhook signatures, with Web Crypto (`globalThis.crypto.subtle`), so they work in Node 20+,
 * browsers, Deno and Bun. `X-Combo-Signature` is `sha256=<lowercase hex HMAC-SHA256(secret,
 * "<X-Combo-Timestamp>.<raw body>")>`; during a secret rotation's grace it carries several,
 * comma-separated, any of which may match.
 */
import { WebhookVerificationError } from './errors';
import type { EventName } from './generated/models';
import { headerValue, isRecord, uuid, type HeadersLike } from './internal';

/** An outbound delivery's body: the recorded event. */
export interface WebhookEvent {
  event_id: string;
  /** An event name of the log, or `webhook.test` (POST .../subscriptions/{id}/test). */
  event: EventName | 'webhook.test';
  tenant_id: string;
  /** ISO 8601 UTC timestamp. */
  timestamp: string;
  data: Record<string, unknown>;
}

export interface VerifyWebhookOptions {
  /** How far `X-Combo-Timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (default: the clock). */
  now?: number;
}

const encoder = new TextEncoder();

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new WebhookVerificationError('Web Crypto (crypto.subtle) is not available here; a browser needs a secure context.');
  return s;
}

function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function bytesOf(payload: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  return payload instanceof Uint8Array ? payload : new Uint8Array(payload);
}

/** `"<timestamp>." + body`, as bytes. */
function signedContent(timestamp: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

/** Lowercase hex to bytes; undefined when it is not hex of a whole number of bytes. */
function fromHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const toHex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * Verifies an outbound delivery and answers its event. `payload` is the raw body as received (a
 * string or bytes; not re-serialised JSON), `headers` the request's headers (fetch Headers or Node's
 * `req.headers`), `secret` the subscription's secret, or several (yours during your own rotation:
 * any may match). Throws WebhookVerificationError when the timestamp is missing or further than
 * `toleranceSeconds` from now, or no signature of the header matches any secret (each pair is
 * checked, in constant time, by Web Crypto; no early exit).
 */
export async function verifyWebhook(
  payload: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  secret: string | string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array) && !(payload instanceof ArrayBuffer))
    throw new WebhookVerificationError('The payload must be the raw body (a string or bytes), not parsed JSON.');
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const timestamp = headerValue(headers, 'x-combo-timestamp')?.trim();
  if (!timestamp || !/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Missing or malformed X-Combo-Timestamp header.');
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - Number(timestamp)) > toleranceSeconds)
    throw new WebhookVerificationError(`X-Combo-Timestamp is outside the tolerance of ${toleranceSeconds} s.`);
  const header = headerValue(headers, 'x-combo-signature');
  if (!header) throw new WebhookVerificationError('Missing X-Combo-Signature header.');

  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0 || !secrets.every((s) => typeof s === 'string' && s !== ''))
    throw new WebhookVerificationError('No secret to verify with: pass a secret, or a non-empty array of them.');

  const body = bytesOf(payload);
  const content = signedContent(timestamp, body);
  const signatures = header.split(',').map((given) => {
    const [scheme, hex] = given.trim().split('=', 2);
    return scheme === 'sha256' && hex ? fromHex(hex) : undefined;
  });
  let matched = false;
  for (const s of secrets) {
    const key = await hmacKey(s, 'verify');
    // Every pair of secret and signature is checked, whether an earlier one matched or not.
    for (const signature of signatures) {
      const ok = signature ? await subtle().verify('HMAC', key, signature, content) : false;
      matched = matched || ok;
    }
  }
  if (!matched) throw new WebhookVerificationError('No signature of X-Combo-Signature matches the payload.');

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('The payload is not JSON.');
  }
  if (!isRecord(event)) throw new WebhookVerificationError('The payload is not a JSON object.');
  return event as unknown as WebhookEvent;
}

export interface SignWebhookParams {
  /** The body to send: a string or bytes as they will be sent, or an object (sent as `JSON.stringify(payload)`). */
  payload: string | Uint8Array | Record<string, unknown>;
  secret: string;
  /** Unix seconds (default: now). */
  timestamp?: number;
  /** X-Combo-Event-Id (default: a random UUID). */
  eventId?: string;
}

/** The headers of a signed inbound call (`X-Combo-Signature`, `X-Combo-Timestamp`, `X-Combo-Event-Id`). */
export async function signWebhook(params: SignWebhookParams): Promise<Record<string, string>> {
  const timestamp = String(params.timestamp ?? Math.floor(Date.now() / 1000));
  const body = typeof params.payload === 'string' || params.payload instanceof Uint8Array ? params.payload : JSON.stringify(params.payload);
  const key = await hmacKey(params.secret, 'sign');
  const signature = await subtle().sign('HMAC', key, signedContent(timestamp, bytesOf(body)));
  return {
    'X-Combo-Signature': `sha256=${toHex(signature)}`,
    'X-Combo-Timestamp': timestamp,
    'X-Combo-Event-Id': params.eventId ?? uuid(),
  };
}
