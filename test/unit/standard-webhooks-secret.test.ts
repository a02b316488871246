import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isStandardWebhooksSecret } from '../../common/standard-webhooks-secret';

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

describe('isStandardWebhooksSecret', () => {
  it('admits whsec_ + padded standard base64 of 24 to 64 bytes, which the npm library reads back to those bytes', () => {
    for (const bytes of [24, 25, 26, 32, 40, 64]) {
      const secret = secretOf(bytes);
      expect(isStandardWebhooksSecret(secret)).toBe(true);
      // The library keys the HMAC with the decoded bytes: signing with them raw gives the same signature.
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      const at = new Date();
      expect(new Webhook(secret).sign('evt_1', at, '{}')).toBe(new Webhook(key, { format: 'raw' }).sign('evt_1', at, '{}'));
    }
    // The secrets the service generated for `combo` subscriptions: 40 base62 characters, 30 bytes.
    expect(isStandardWebhooksSecret(`whsec_${'aZ09'.repeat(10)}`)).toBe(true);
  });

  it('refuses other forms', () => {
    for (const secret of [
      secretOf(23), // too short a key
      secretOf(65), // too long a key
      secretOf(32).slice('whsec_'.length), // no prefix
      `WHSEC_${secretOf(32).slice(6)}`,
      secretOf(32).replace(/=$/, ''), // unpadded
      `whsec_${'A'.repeat(30)}-_`, // base64url's alphabet
      `whsec_${'A'.repeat(30)}=A`, // padding inside
      `whsec_${'A'.repeat(29)}===`,
      `whsec_${'A'.repeat(32)} `,
      'whsec_',
      'a-shared-secret-of-some-length',
    ])
      expect([secret, isStandardWebhooksSecret(secret)]).toEqual([secret, false]);
  });
});
