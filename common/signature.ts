import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The spec's webhook signature, both directions: `sha256=` + lowercase hex HMAC-SHA256 of
 * "<timestamp>.<raw body>" keyed with the shared secret.
 */
export function signPayload(secret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return `sha256=${hmac.digest('hex')}`;
}

/** Constant-time check of a received signature header. */
export function signatureMatches(secret: string, timestamp: string, rawBody: Buffer | string, header: string): boolean {
  const expected = Buffer.from(signPayload(secret, timestamp, rawBody));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
