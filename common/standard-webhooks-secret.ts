/**
 * The secret form Standard Webhooks (https://www.standardwebhooks.com) consumers expect: `whsec_`
 * and the standard base64 (padded) of the key, which the specification wants 24 to 64 bytes long.
 * Its libraries key the HMAC with the decoded bytes, so a secret of another form would not verify.
 */
export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

const FORM = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

export const STANDARD_WEBHOOKS_SECRET_RULE = `a Standard Webhooks secret: whsec_ followed by the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`;

/** Whether `secret` is `whsec_` + padded standard base64 of 24-64 bytes. */
export function isStandardWebhooksSecret(secret: string): boolean {
  const base64 = FORM.exec(secret)?.[1];
  if (base64 === undefined) return false;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  const bytes = (base64.length / 4) * 3 - padding;
  return bytes >= MIN_KEY_BYTES && bytes <= MAX_KEY_BYTES;
}
