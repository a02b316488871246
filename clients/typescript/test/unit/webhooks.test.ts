/** Webhook signatures without a service: sign, verify, rotation headers, refusals. */
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../../src/index';

const body = JSON.stringify({
  event_id: 'evt_1',
  event: 'session.created',
  tenant_id: 'default',
  timestamp: '2026-11-23T08:00:00.000Z',
  data: { session_id: 'ses_1' },
});
const now = () => Math.floor(Date.now() / 1000);
const hmac = (secret: string, ts: number, payload: string) => createHmac('sha256', secret).update(`${ts}.${payload}`).digest('hex');

describe('signWebhook', () => {
  test('X-Combo-Signature is sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>', async () => {
    const headers = await signWebhook({ payload: body, secret: 's3cret', timestamp: 1_700_000_000, eventId: 'evt_1' });
    expect(headers).toEqual({
      'X-Combo-Signature': `sha256=${hmac('s3cret', 1_700_000_000, body)}`,
      'X-Combo-Timestamp': '1700000000',
      'X-Combo-Event-Id': 'evt_1',
    });
    const fromObject = await signWebhook({
      payload: JSON.parse(body) as Record<string, unknown>,
      secret: 's3cret',
      timestamp: 1_700_000_000,
    });
    expect(fromObject['X-Combo-Signature']).toBe(headers['X-Combo-Signature']);
    expect(fromObject['X-Combo-Event-Id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('verifyWebhook', () => {
  test('answers the event for a good signature (any header shape, string or bytes)', async () => {
    const ts = now();
    const headers = { 'x-combo-signature': `sha256=${hmac('s3cret', ts, body)}`, 'x-combo-timestamp': String(ts) };
    await expect(verifyWebhook(body, headers, 's3cret')).resolves.toMatchObject({ event_id: 'evt_1', event: 'session.created' });
    await expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), 's3cret')).resolves.toMatchObject({
      event_id: 'evt_1',
    });
    await expect(
      verifyWebhook(body, { 'X-Combo-Signature': [headers['x-combo-signature']], 'X-Combo-Timestamp': String(ts) }, 's3cret'),
    ).resolves.toBeDefined();
  });

  test('several signatures during a rotation: any may match', async () => {
    const ts = now();
    const header = `sha256=${hmac('new-secret', ts, body)},sha256=${hmac('old-secret', ts, body)}`;
    for (const secret of ['new-secret', 'old-secret'])
      await expect(verifyWebhook(body, { 'x-combo-signature': header, 'x-combo-timestamp': String(ts) }, secret)).resolves.toBeDefined();
    await expect(verifyWebhook(body, { 'x-combo-signature': header, 'x-combo-timestamp': String(ts) }, 'other')).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  test("several secrets (the receiver's own rotation): any may match any signature", async () => {
    const ts = now();
    const headers = { 'x-combo-signature': `sha256=${hmac('old-secret', ts, body)}`, 'x-combo-timestamp': String(ts) };
    await expect(verifyWebhook(body, headers, ['new-secret', 'old-secret'])).resolves.toMatchObject({ event_id: 'evt_1' });
    await expect(verifyWebhook(body, headers, ['old-secret', 'new-secret'])).resolves.toMatchObject({ event_id: 'evt_1' });
    await expect(verifyWebhook(body, headers, ['new-secret', 'other'])).rejects.toThrow(/signature/);
    // During the service's rotation grace too: two signatures, two secrets.
    const both = { ...headers, 'x-combo-signature': `sha256=${hmac('b', ts, body)},sha256=${hmac('a', ts, body)}` };
    await expect(verifyWebhook(body, both, ['c', 'a'])).resolves.toBeDefined();
    await expect(verifyWebhook(body, both, [])).rejects.toThrow(/secret/);
    await expect(verifyWebhook(body, both, [''])).rejects.toThrow(/secret/);
  });

  test('refuses a wrong secret, an altered body, a stale or future timestamp, missing or malformed headers, parsed JSON', async () => {
    const ts = now();
    const headers = { 'x-combo-signature': `sha256=${hmac('s3cret', ts, body)}`, 'x-combo-timestamp': String(ts) };
    const refused = (p: Promise<unknown>, message: RegExp) => expect(p).rejects.toThrow(message);
    await refused(verifyWebhook(body, headers, 'wrong'), /signature/);
    await refused(verifyWebhook(body.replace('ses_1', 'ses_2'), headers, 's3cret'), /signature/);
    const stale = { 'x-combo-signature': `sha256=${hmac('s3cret', ts - 301, body)}`, 'x-combo-timestamp': String(ts - 301) };
    await refused(verifyWebhook(body, stale, 's3cret'), /tolerance/);
    await expect(verifyWebhook(body, stale, 's3cret', { toleranceSeconds: 600 })).resolves.toBeDefined();
    const future = { 'x-combo-signature': `sha256=${hmac('s3cret', ts + 400, body)}`, 'x-combo-timestamp': String(ts + 400) };
    await refused(verifyWebhook(body, future, 's3cret'), /tolerance/);
    await refused(verifyWebhook(body, { 'x-combo-signature': headers['x-combo-signature'] }, 's3cret'), /Timestamp/);
    await refused(verifyWebhook(body, { 'x-combo-timestamp': String(ts) }, 's3cret'), /Signature/);
    await refused(verifyWebhook(body, { ...headers, 'x-combo-signature': 'sha256=zz' }, 's3cret'), /signature/);
    await refused(verifyWebhook(body, { ...headers, 'x-combo-signature': hmac('s3cret', ts, body) }, 's3cret'), /signature/);
    await refused(verifyWebhook(JSON.parse(body) as string, headers, 's3cret'), /raw body/);
  });
});
