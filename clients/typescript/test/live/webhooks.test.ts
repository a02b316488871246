/** Outbound webhooks: subscriptions and deliveries, and verifyWebhook on real deliveries received by a local server. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ConflictError,
  NotFoundError,
  signWebhook,
  ValidationError,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookSubscriptionWithSecret,
} from '../../src/index';
import { delay, eventually, newClient } from '../support/client';

const client = newClient();

interface Received {
  body: Buffer;
  headers: IncomingHttpHeaders;
}
const received: Received[] = [];
let server: Server;
let url: string;
let subscription: WebhookSubscriptionWithSecret;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  subscription = await client.webhooks.subscriptions.create({
    url,
    events: ['session.created'],
    secret: 'first-secret-0123456789',
    description: 'client tests',
  });
});
afterAll(async () => {
  await client.webhooks.subscriptions.delete(subscription.subscription_id);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The delivery of `eventId` once it has arrived. */
const deliveryOf = (eventId: string) =>
  eventually(() => Promise.resolve(received.find((r) => r.headers['x-combo-event-id'] === eventId)), 20_000, 100);

describe('dead letters', () => {
  test('a delivery failing five times is a dead letter; replayed once the receiver recovers, it arrives', async () => {
    // The service under test waits 200 ms between attempts (WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS).
    let failing = true;
    const arrived: string[] = [];
    const flaky = createServer((req, res) => {
      req.resume().on('end', () => {
        if (!failing) arrived.push(String(req.headers['x-combo-event-id']));
        res.writeHead(failing ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      const sub = await client.webhooks.subscriptions.create({
        url: `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/hooks`,
        events: ['session.created'],
      });
      const delivery = await client.webhooks.subscriptions.test(sub.subscription_id);
      const dead = await eventually(async () => {
        const d = await client.webhooks.deliveries.get(delivery.delivery_id);
        return d.status === 'dead' ? d : undefined;
      }, 30_000);
      expect(dead.attempts).toHaveLength(5);
      const letters = await client.webhooks.deadLetters.list({ page_size: 100 });
      expect(letters.items.map((d) => d.delivery_id)).toContain(delivery.delivery_id);
      failing = false;
      const replayed = await client.webhooks.deadLetters.replay(delivery.delivery_id);
      expect(replayed.event_id).toBe(delivery.event_id);
      expect((await client.webhooks.deliveries.get(delivery.delivery_id)).replayed_by).toBe(replayed.delivery_id);
      const handled = await client.webhooks.deadLetters.list({ subscription_id: sub.subscription_id, replayed: true });
      expect(handled.items.map((d) => d.delivery_id)).toEqual([delivery.delivery_id]);
      expect((await client.webhooks.deadLetters.list({ subscription_id: sub.subscription_id, replayed: false })).items).toEqual([]);
      const tests = await client.webhooks.deliveries.list({
        subscription_id: sub.subscription_id,
        event: 'webhook.test',
        since: dead.created_at,
      });
      expect(tests.items.map((d) => d.delivery_id)).toEqual([replayed.delivery_id, delivery.delivery_id]);
      await eventually(() => Promise.resolve(arrived.includes(delivery.event_id) ? true : undefined), 20_000, 100);
      await client.webhooks.subscriptions.delete(sub.subscription_id);
    } finally {
      flaky.closeAllConnections();
      await new Promise((resolve) => flaky.close(resolve));
    }
  });
});

describe('webhook subscriptions', () => {
  test('list, get, update', async () => {
    expect(subscription).toMatchObject({ url, events: ['session.created'], secret: 'first-secret-0123456789', enabled: true });
    const ids = [];
    for await (const s of client.webhooks.subscriptions.list()) ids.push(s.subscription_id);
    expect(ids).toContain(subscription.subscription_id);
    expect((await client.webhooks.subscriptions.get(subscription.subscription_id)).secret_last4).toBe('6789');
    const updated = await client.webhooks.subscriptions.update(subscription.subscription_id, { events: ['session.created', 'run.failed'] });
    expect(updated.events).toEqual(['session.created', 'run.failed']);
    expect(updated.signing).toBe('combo');
  });

  test('signing: a Standard Webhooks subscription gets a whsec_ base64 secret; switching back and forth', async () => {
    const standard = await client.webhooks.subscriptions.create({ url, events: ['session.created'], signing: 'standard_webhooks' });
    try {
      expect(standard.signing).toBe('standard_webhooks');
      expect(standard.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect((await client.webhooks.subscriptions.get(standard.subscription_id)).signing).toBe('standard_webhooks');
      expect((await client.webhooks.subscriptions.update(standard.subscription_id, { signing: 'combo' })).signing).toBe('combo');
      // The first subscription's own secret is of another form: it cannot switch (10001).
      const refused = await client.webhooks.subscriptions
        .update(subscription.subscription_id, { signing: 'standard_webhooks' })
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).field).toBe('body.signing');
    } finally {
      await client.webhooks.subscriptions.delete(standard.subscription_id);
    }
  });

  test('a test delivery verifies with the secret, and not with a wrong secret, an altered body or a stale timestamp', async () => {
    const delivery = await client.webhooks.subscriptions.test(subscription.subscription_id);
    expect(delivery).toMatchObject({ subscription_id: subscription.subscription_id, event: 'webhook.test' });
    const { body, headers } = await deliveryOf(delivery.event_id);

    const event = await verifyWebhook(body, headers, 'first-secret-0123456789');
    expect(event).toMatchObject({ event_id: delivery.event_id, event: 'webhook.test', tenant_id: 'default' });
    expect(await verifyWebhook(body.toString('utf8'), new Headers(headers as Record<string, string>), 'first-secret-0123456789')).toEqual(
      event,
    );

    await expect(verifyWebhook(body, headers, 'wrong-secret-0123456789')).rejects.toBeInstanceOf(WebhookVerificationError);
    const altered = Buffer.from(body.toString('utf8').replace('webhook.test', 'webhook.tesT'));
    await expect(verifyWebhook(altered, headers, 'first-secret-0123456789')).rejects.toThrow(/signature/);
    await expect(verifyWebhook(body, headers, 'first-secret-0123456789', { now: Date.now() / 1000 + 301 })).rejects.toThrow(/tolerance/);
    await expect(
      verifyWebhook(body, { ...headers, 'x-combo-timestamp': String(Number(headers['x-combo-timestamp']) - 1) }, 'first-secret-0123456789'),
    ).rejects.toThrow(/signature/);
    // An old delivery signed properly is still refused for its timestamp.
    const old = await signWebhook({
      payload: body.toString('utf8'),
      secret: 'first-secret-0123456789',
      timestamp: Math.floor(Date.now() / 1000) - 600,
    });
    await expect(verifyWebhook(body, old, 'first-secret-0123456789')).rejects.toThrow(/tolerance/);

    await eventually(async () => ((await client.webhooks.deliveries.get(delivery.delivery_id)).status === 'delivered' ? true : undefined));
    const viaSubscription = await client.webhooks.subscriptions.listDeliveries(subscription.subscription_id);
    expect(viaSubscription.items.map((d) => d.delivery_id)).toContain(delivery.delivery_id);
    const filtered = await client.webhooks.deliveries.list({ event_id: delivery.event_id });
    expect(filtered.items).toEqual([expect.objectContaining({ delivery_id: delivery.delivery_id, status: 'delivered' })]);
  });

  test('during a rotation grace a delivery carries two signatures; either secret verifies', async () => {
    const rotated = await client.webhooks.subscriptions.rotateSecret(subscription.subscription_id, {
      secret: 'second-secret-0123456789',
      grace_seconds: 60,
    });
    expect(rotated.secret).toBe('second-secret-0123456789');
    expect(rotated.previous_secret_valid_until).not.toBeNull();
    await delay(2_200); // a rotation applies to attempts that start 2 s later
    const delivery = await client.webhooks.subscriptions.test(subscription.subscription_id);
    const { body, headers } = await deliveryOf(delivery.event_id);
    expect(String(headers['x-combo-signature']).split(',')).toHaveLength(2);
    await expect(verifyWebhook(body, headers, 'second-secret-0123456789')).resolves.toMatchObject({ event_id: delivery.event_id });
    await expect(verifyWebhook(body, headers, 'first-secret-0123456789')).resolves.toMatchObject({ event_id: delivery.event_id });
    await expect(verifyWebhook(body, headers, 'third-secret-0123456789')).rejects.toBeInstanceOf(WebhookVerificationError);
    // The receiver's own rotation: several secrets, any may match.
    await expect(verifyWebhook(body, headers, ['third-secret-0123456789', 'second-secret-0123456789'])).resolves.toMatchObject({
      event_id: delivery.event_id,
    });
    await expect(verifyWebhook(body, headers, ['third-secret-0123456789', 'fourth-secret-0123456789'])).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );
  });

  test('dead letters and replays', async () => {
    await expect(client.webhooks.deadLetters.replay('dlv_doesnotexist')).rejects.toBeInstanceOf(NotFoundError);
    const delivered = await client.webhooks.subscriptions.test(subscription.subscription_id);
    await deliveryOf(delivered.event_id);
    await eventually(async () => ((await client.webhooks.deliveries.get(delivered.delivery_id)).status === 'delivered' ? true : undefined));
    const notDead = await client.webhooks.deadLetters.replay(delivered.delivery_id).catch((e: unknown) => e);
    expect(notDead).toBeInstanceOf(ConflictError);
    expect(notDead).toMatchObject({ code: 10005, status: 409, data: { status: 'delivered' } });

    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date().toISOString();
    const replay = await client.webhooks.replays.create({
      since,
      until,
      events: ['session.created'],
      subscription_id: subscription.subscription_id,
    });
    expect(replay.replay_id).toBeTruthy();
    const done = await eventually(async () => {
      const r = await client.webhooks.replays.get(replay.replay_id);
      return r.status === 'running' ? undefined : r;
    });
    expect(done.status).toBe('completed');
  });
});
