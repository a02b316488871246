import { signatureMatches, signPayload } from '../../common/signature';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, startConsumer, verifyDelivery } from '../support/consumer';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let consumer: Consumer;
beforeAll(async () => {
  // The tests poll the API (every 50 ms) while deliveries happen: far above the default 300 calls a minute.
  api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  worker = await startTestWorker(api);
  consumer = await startConsumer();
});
afterAll(async () => {
  await worker.stop();
  await consumer.close();
  await api.close();
});
beforeEach(() => consumer.answerWith(() => ({ status: 200 })));

const admin = () => api.adminKey;
const subscribe = async (body: Record<string, unknown>) => {
  const res = await api.call('POST', '/v1/webhook/subscriptions', { key: admin(), body });
  expect(res.json.code).toBe(0);
  return res.json.data;
};
const newSession = async () => {
  const agent = (await api.call('POST', '/v1/combo/agents', { key: admin(), body: { name: 'hooked' } })).json.data;
  return (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: admin(), body: { user_id: 'u-1' } })).json.data;
};
const forSession = (sessionId: string) => consumer.received.filter((r) => r.json.data.session_id === sessionId);

describe('subscriptions', () => {
  it('shows the secret once, stores it encrypted, and validates events and URLs', async () => {
    const created = await subscribe({ url: consumer.url, events: ['session.created'], secret: 'a-shared-secret-of-some-length' });
    expect(created).toMatchObject({
      url: consumer.url,
      events: ['session.created'],
      enabled: true,
      secret: 'a-shared-secret-of-some-length',
      secret_last4: 'ngth',
    });
    const got = await api.call('GET', `/v1/webhook/subscriptions/${created.subscription_id}`, { key: admin() });
    expect(got.json.data.secret).toBeUndefined();
    const stored = await api.services.mongo.db.collection('webhook_subscriptions').findOne({ _id: created.subscription_id });
    expect(JSON.stringify(stored)).not.toContain('a-shared-secret-of-some-length');

    const generated = await subscribe({ url: consumer.url, events: ['session.archived'] });
    expect(generated.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);

    const bad = [
      [{ url: consumer.url, events: ['session.exploded'] }, 'body.events.0'],
      [{ url: consumer.url, events: [] }, 'body.events'],
      [{ url: 'ftp://example.com/x', events: ['session.created'] }, 'body.url'],
      [{ url: 'not a url', events: ['session.created'] }, 'body.url'],
      [{ url: consumer.url, events: ['session.created'], secret: 'short' }, 'body.secret'],
    ] as const;
    for (const [body, field] of bad) {
      const res = await api.call('POST', '/v1/webhook/subscriptions', { key: admin(), body });
      expect(res.json).toMatchObject({ code: 10001, data: { field } });
    }
  });

  it('refuses private, loopback and other non-public URLs (in any spelling) unless the installation allows them', async () => {
    const strict = await startTestApi({ ALLOW_PRIVATE_URLS: 'false' });
    try {
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://10.1.2.3/hook',
        'http://[::1]/hook',
        'http://192.168.0.10/',
        'http://localhost/x',
        'http://2130706433/hook',
        'http://[::ffff:7f00:1]/hook',
        'http://[64:ff9b::a00:1]/hook',
        'http://198.51.100.7/hook',
      ]) {
        const res = await strict.call('POST', '/v1/webhook/subscriptions', {
          key: strict.adminKey,
          body: { url, events: ['session.created'] },
        });
        expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.url' } });
        expect(res.json.message).toContain('private, loopback or reserved');
      }
    } finally {
      await strict.close();
    }
  });

  it('is for administrators of the tenant only', async () => {
    const created = await subscribe({ url: consumer.url, events: ['session.created'] });
    const member = await consoleToken({ tenant_id: 'default', sub: 'm', roles: ['member'] });
    expect((await api.call('GET', '/v1/webhook/subscriptions', { key: member })).json.code).toBe(10003);
    const stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] });
    expect((await api.call('GET', `/v1/webhook/subscriptions/${created.subscription_id}`, { key: stranger })).json.code).toBe(10004);
    expect((await api.call('DELETE', `/v1/webhook/subscriptions/${created.subscription_id}`, { key: stranger })).json.code).toBe(10004);
  });
});

describe('delivery', () => {
  it('delivers a recorded event once per subscription, signed, in the spec envelope', async () => {
    const sub = await subscribe({ url: consumer.url, events: ['session.created'], secret: 'signing-secret-0123456789' });
    const session = await newSession();
    // Every subscription for session.created (earlier tests made some) gets its own copy, each in
    // its own time; ours is the one signed with its secret.
    const signedForUs = () =>
      forSession(session.session_id).filter(
        (r) =>
          r.rawBody &&
          r.json.event === 'session.created' &&
          signatureMatches(
            'signing-secret-0123456789',
            String(r.headers['x-combo-timestamp']),
            r.rawBody,
            String(r.headers['x-combo-signature']),
          ),
      );
    const request = (await eventually(async () => (signedForUs().length > 0 ? signedForUs() : undefined)))[0]!;
    expect(signedForUs()).toHaveLength(1);
    expect(request.headers['x-combo-delivery-id']).toBeDefined();
    expect(request.headers['content-type']).toBe('application/json');
    expect(String(request.headers['x-combo-signature'])).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(Math.abs(Number(request.headers['x-combo-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(Object.keys(request.json)).toEqual(['event_id', 'event', 'tenant_id', 'timestamp', 'data']);
    expect(request.json).toMatchObject({
      event: 'session.created',
      tenant_id: 'default',
      data: { session_id: session.session_id, tenant_id: 'default', user_id: 'u-1' },
    });
    expect(request.headers['x-combo-event-id']).toBe(request.json.event_id);
    expect(new Date(request.json.timestamp).toISOString()).toBe(request.json.timestamp);

    const deliveries = await eventually(async () => {
      const res = await api.call('GET', `/v1/webhook/subscriptions/${sub.subscription_id}/deliveries`, { key: admin() });
      const done = res.json.data.items.filter(
        (d: { status: string; event_id: string }) => d.status === 'delivered' && d.event_id === request.json.event_id,
      );
      return done.length ? done : undefined;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      attempt_count: 1,
      replay_of: null,
      attempts: [{ attempt: 1, ok: true, status_code: 200, error: null }],
    });
    expect(deliveries[0].attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    const byEvent = await api.call('GET', `/v1/webhook/deliveries?event_id=${request.json.event_id}`, { key: admin() });
    expect(byEvent.json.data.items.map((d: { subscription_id: string }) => d.subscription_id)).toContain(sub.subscription_id);
    await api.call('DELETE', `/v1/webhook/subscriptions/${sub.subscription_id}`, { key: admin() });
  });

  it('starts exactly one delivery per (event, subscription) even when dispatchers race', async () => {
    // Stop the background dispatcher so the race below is the only one.
    worker.dispatcher.stop();
    const sub = await subscribe({ url: `${consumer.url}?race`, events: ['session.archived'] });
    const sessions = await Promise.all(Array.from({ length: 6 }, () => newSession()));
    for (const s of sessions) await api.call('POST', `/v1/combo/sessions/${s.session_id}/archive`, { key: admin() });
    const second = await startTestWorker(api, { dispatcher: false });
    try {
      await Promise.all([worker.dispatcher.dispatchOnce(), second.dispatcher.dispatchOnce(), second.dispatcher.dispatchOnce()]);
      await eventually(async () => {
        const res = await api.call('GET', `/v1/webhook/deliveries?subscription_id=${sub.subscription_id}&status=delivered&page_size=100`, {
          key: admin(),
        });
        return res.json.data.total === sessions.length ? true : undefined;
      });
      const archived = consumer.received.filter((r) => r.path === '/hook?race');
      expect(archived).toHaveLength(sessions.length);
      expect(archived.map((r) => r.json.data.session_id).sort()).toEqual(sessions.map((s) => s.session_id).sort());
      expect(new Set(archived.map((r) => r.json.event_id)).size).toBe(sessions.length);
    } finally {
      await second.stop();
    }
  });

  it('sends a test event to one subscription, and signs with a rotated secret from then on', async () => {
    const sub = await subscribe({ url: consumer.url, events: ['agent.step'], secret: 'first-secret-0123456789' });
    const rotated = await api.call('POST', `/v1/webhook/subscriptions/${sub.subscription_id}/rotate-secret`, { key: admin(), body: {} });
    const newSecret = rotated.json.data.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    const test = await api.call('POST', `/v1/webhook/subscriptions/${sub.subscription_id}/test`, { key: admin() });
    expect(test.json.data).toMatchObject({ event: 'webhook.test', subscription_id: sub.subscription_id });
    const request = await eventually(async () =>
      consumer.received.find((r) => r.json.event === 'webhook.test' && r.json.data.subscription_id === sub.subscription_id),
    );
    const ts = String(request.headers['x-combo-timestamp']);
    expect(signatureMatches(newSecret, ts, request.rawBody, String(request.headers['x-combo-signature']))).toBe(true);
    expect(signatureMatches('first-secret-0123456789', ts, request.rawBody, String(request.headers['x-combo-signature']))).toBe(false);
    const delivery = await eventually(async () => {
      const res = await api.call('GET', `/v1/webhook/deliveries/${test.json.data.delivery_id}`, { key: admin() });
      return res.json.data.status === 'delivered' ? res.json.data : undefined;
    });
    expect(delivery.attempts).toHaveLength(1);
  });
});

describe('rotating a secret with a grace', () => {
  const sendTest = async (subscriptionId: string) => {
    const test = await api.call('POST', `/v1/webhook/subscriptions/${subscriptionId}/test`, { key: admin() });
    expect(test.json.code).toBe(0);
    return eventually(async () => consumer.received.find((r) => r.headers['x-combo-delivery-id'] === test.json.data.delivery_id));
  };
  const rotate = (subscriptionId: string, body: Record<string, unknown>) =>
    api.call('POST', `/v1/webhook/subscriptions/${subscriptionId}/rotate-secret`, { key: admin(), body });

  it('signs with both secrets during the grace, `sha256=<new>,sha256=<old>`, then with the new one alone', async () => {
    const oldSecret = 'grace-old-secret-0123456789';
    const sub = await subscribe({ url: consumer.url, events: ['agent.step'], secret: oldSecret });
    expect(sub.previous_secret_valid_until).toBeNull();

    // A grace long enough for a delivery through Temporal to happen within it on a loaded machine.
    const rotated = await rotate(sub.subscription_id, { grace_seconds: 15 });
    expect(rotated.json.code).toBe(0);
    const newSecret = rotated.json.data.secret as string;
    const graceEnd = Date.parse(rotated.json.data.previous_secret_valid_until);
    expect(graceEnd - Date.now()).toBeGreaterThan(10_000);
    expect(graceEnd - Date.now()).toBeLessThanOrEqual(15_000);
    const got = await api.call('GET', `/v1/webhook/subscriptions/${sub.subscription_id}`, { key: admin() });
    expect(got.json.data.previous_secret_valid_until).toBe(rotated.json.data.previous_secret_valid_until);
    const stored = await api.services.mongo.db.collection('webhook_subscriptions').findOne({ _id: sub.subscription_id });
    expect(JSON.stringify(stored)).not.toContain(oldSecret);
    expect(JSON.stringify(stored)).not.toContain(newSecret);

    const during = await sendTest(sub.subscription_id);
    const ts = String(during.headers['x-combo-timestamp']);
    const signatures = String(during.headers['x-combo-signature']).split(',');
    expect(signatures).toEqual([signPayload(newSecret, ts, during.rawBody), signPayload(oldSecret, ts, during.rawBody)]);
    // A consumer on either secret accepts it; one on neither does not.
    expect(verifyDelivery(newSecret, during.rawBody, during.headers)).toBe(true);
    expect(verifyDelivery(oldSecret, during.rawBody, during.headers)).toBe(true);
    expect(verifyDelivery('some-other-secret-0123456789', during.rawBody, during.headers)).toBe(false);

    // After the grace: the new secret alone.
    await eventually(async () => (Date.now() > graceEnd ? true : undefined));
    const after = await sendTest(sub.subscription_id);
    expect(String(after.headers['x-combo-signature'])).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyDelivery(newSecret, after.rawBody, after.headers)).toBe(true);
    expect(verifyDelivery(oldSecret, after.rawBody, after.headers)).toBe(false);
    expect((await api.call('GET', `/v1/webhook/subscriptions/${sub.subscription_id}`, { key: admin() })).json.data).toMatchObject({
      previous_secret_valid_until: null,
    });
  });

  it('keeps only the secret replaced last: a rotation during a grace ends the older secret at once', async () => {
    const first = 'grace-first-secret-0123456789';
    const sub = await subscribe({ url: consumer.url, events: ['agent.step'], secret: first });
    const second = (await rotate(sub.subscription_id, { grace_seconds: 600 })).json.data.secret as string;
    const third = (await rotate(sub.subscription_id, { grace_seconds: 600, secret: 'grace-third-secret-0123456789' })).json.data;
    expect(third.secret).toBe('grace-third-secret-0123456789');
    // Nothing was delivered to it yet, so no worker holds its settings from before the rotations.
    const request = await sendTest(sub.subscription_id);
    expect(String(request.headers['x-combo-signature']).split(',')).toHaveLength(2);
    expect(verifyDelivery(third.secret, request.rawBody, request.headers)).toBe(true);
    expect(verifyDelivery(second, request.rawBody, request.headers)).toBe(true);
    expect(verifyDelivery(first, request.rawBody, request.headers)).toBe(false);

    // grace 0 (the default): the replaced secret stops at once.
    const fourth = (await rotate(sub.subscription_id, {})).json.data;
    expect(fourth.previous_secret_valid_until).toBeNull();
  });

  it('refuses a grace out of bounds', async () => {
    const sub = await subscribe({ url: consumer.url, events: ['agent.step'] });
    for (const grace of [-1, 604_801, 1.5, '60']) {
      const res = await rotate(sub.subscription_id, { grace_seconds: grace });
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.grace_seconds' } });
    }
    expect((await rotate(sub.subscription_id, { grace_seconds: 604_800 })).json.code).toBe(0);
  });
});

describe('historical replay', () => {
  it('re-delivers events of a time range with their original ids, filtered by name and subscription', async () => {
    worker.dispatcher.stop();
    const since = new Date(Date.now() - 1000).toISOString();
    const sessions = [await newSession(), await newSession()];
    await api.call('POST', `/v1/combo/sessions/${sessions[0].session_id}/archive`, { key: admin() });
    const until = new Date(Date.now() + 1000).toISOString();
    const wanted = await subscribe({ url: consumer.url, events: ['session.created', 'session.archived'] });
    await subscribe({ url: `${consumer.url}?other`, events: ['session.created'] });

    const member = await consoleToken({ tenant_id: 'default', sub: 'm', roles: ['member'] });
    expect((await api.call('POST', '/v1/webhook/replays', { key: member, body: { since, until } })).json.code).toBe(10003);
    const backwards = await api.call('POST', '/v1/webhook/replays', { key: admin(), body: { since: until, until: since } });
    expect(backwards.json).toMatchObject({ code: 10001, data: { field: 'body.until' } });

    const before = consumer.received.length;
    const started = await api.call('POST', '/v1/webhook/replays', {
      key: admin(),
      body: { since, until, events: ['session.created'], subscription_id: wanted.subscription_id },
    });
    expect(started.json.data).toMatchObject({ status: 'running', replay_id: expect.stringMatching(/^rpl_/) });
    const finished = await eventually(async () => {
      const res = await api.call('GET', `/v1/webhook/replays/${started.json.data.replay_id}`, { key: admin() });
      return res.json.data.status === 'completed' ? res.json.data : undefined;
    });
    expect(finished.deliveries_started).toBe(2);
    await consumer.waitFor(before + 2);
    const replayed = consumer.received.slice(before);
    expect(replayed.every((r) => r.path === '/hook')).toBe(true);
    expect(replayed.map((r) => r.json.event).sort()).toEqual(['session.created', 'session.created']);
    expect(replayed.map((r) => r.json.data.session_id).sort()).toEqual(sessions.map((s) => s.session_id).sort());
    const log = await api.call('GET', `/v1/events?event=session.created&since=${encodeURIComponent(since)}`, { key: admin() });
    const originalIds = log.json.data.items.map((e: { event_id: string }) => e.event_id);
    for (const r of replayed) expect(originalIds).toContain(r.json.event_id);
    const other = await api.call('GET', `/v1/webhook/replays/${started.json.data.replay_id}`, {
      key: await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] }),
    });
    expect(other.json.code).toBe(10004);
  });
});
