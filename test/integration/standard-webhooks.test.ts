import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, type Received, startConsumer, verifyDelivery } from '../support/consumer';
import { startTestWorker } from '../support/worker';

const ROOT = resolve(__dirname, '../..');
// stack/test.sh installs the PyPI standardwebhooks package there (stack/install.sh python-clients).
const VENV = process.env.PYTHON_CLIENTS_VENV ?? join(ROOT, '.stack/python-clients');

let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let consumer: Consumer;
beforeAll(async () => {
  // The tests poll the API while deliveries happen: far above the default 300 calls a minute.
  api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  worker = await startTestWorker(api);
  consumer = await startConsumer();
});
afterAll(async () => {
  await worker.stop();
  await consumer.close();
  await api.close();
});

const admin = () => api.adminKey;
/** A subscription whose deliveries reach the consumer at a path of its own. */
const subscribe = async (path: string, body: Record<string, unknown>) => {
  const res = await api.call('POST', '/v1/webhook/subscriptions', { key: admin(), body: { url: `${consumer.url}?${path}`, ...body } });
  expect(res.json.code).toBe(0);
  return res.json.data;
};
const getSubscription = async (id: string) => (await api.call('GET', `/v1/webhook/subscriptions/${id}`, { key: admin() })).json.data;
const rotate = (id: string, body: Record<string, unknown>) =>
  api.call('POST', `/v1/webhook/subscriptions/${id}/rotate-secret`, { key: admin(), body });
const sendTest = async (id: string) => {
  const test = await api.call('POST', `/v1/webhook/subscriptions/${id}/test`, { key: admin() });
  expect(test.json.code).toBe(0);
  return eventually(async () => consumer.received.find((r) => r.headers['x-combo-delivery-id'] === test.json.data.delivery_id));
};
/** A random Standard Webhooks secret of `bytes` bytes. */
const standardSecret = (bytes = 24) => `whsec_${randomBytes(bytes).toString('base64')}`;

/** The headers as a consumer's framework hands them to the library (Node lower-cases their names). */
const headersOf = (request: Received) => request.headers as Record<string, string>;

/** The npm standardwebhooks package's check, as a consumer writes it: the parsed payload, or the error it threw. */
function verifyWithNpm(secret: string, body: string, headers: Record<string, string>): unknown {
  try {
    return new Webhook(secret).verify(body, headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return `WebhookVerificationError: ${err.message}`;
    throw err;
  }
}

const PYTHON_VERIFIER = `
import json, sys
from standardwebhooks import Webhook, WebhookVerificationError
answers = []
for case in json.load(sys.stdin):
    try:
        answers.append(Webhook(case["secret"]).verify(case["body"], case["headers"]))
    except WebhookVerificationError as err:
        answers.append(f"WebhookVerificationError: {err}")
print(json.dumps(answers))
`;

/** The PyPI standardwebhooks package's check of each case, run by the venv's Python: the parsed payload, or the error it raised. */
function verifyWithPython(cases: Array<{ secret: string; body: string; headers: Record<string, string> }>): Promise<unknown[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(join(VENV, 'bin/python'), ['-c', PYTHON_VERIFIER], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(JSON.parse(out) as unknown[]) : reject(new Error(`python exited ${code}: ${err}`)),
    );
    child.stdin.end(JSON.stringify(cases));
  });
}

const NO_MATCH = 'WebhookVerificationError: No matching signature found';

describe('Standard Webhooks signing', () => {
  it('signs a real delivery so that the standardwebhooks packages of npm and PyPI verify it, beside X-Combo-Signature', async () => {
    const standard = await subscribe('standard', { events: ['session.created'], signing: 'standard_webhooks' });
    const combo = await subscribe('combo', { events: ['session.created'] });
    expect(standard.signing).toBe('standard_webhooks');
    expect(standard.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(standard.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(combo.signing).toBe('combo');
    expect(combo.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    expect(await getSubscription(standard.subscription_id)).toMatchObject({ signing: 'standard_webhooks' });
    const listed = (await api.call('GET', '/v1/webhook/subscriptions?page_size=100', { key: admin() })).json.data.items;
    expect(listed.find((s: { subscription_id: string }) => s.subscription_id === standard.subscription_id).signing).toBe(
      'standard_webhooks',
    );

    // A real event: a session created through the API, delivered by the worker's dispatcher.
    const agent = (await api.call('POST', '/v1/combo/agents', { key: admin(), body: { name: 'standard' } })).json.data;
    const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: admin(), body: { user_id: 'u-1' } })).json
      .data;
    const delivered = (path: string) =>
      eventually(async () => consumer.received.find((r) => r.path.endsWith(`?${path}`) && r.json.data.session_id === session.session_id));
    const request = await delivered('standard');
    const headers = headersOf(request);
    expect(headers['webhook-id']).toBe(request.json.event_id);
    expect(headers['webhook-timestamp']).toBe(headers['x-combo-timestamp']);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    expect(verifyWithNpm(standard.secret, request.rawBody, headers)).toEqual(request.json);
    expect(verifyWithNpm(standardSecret(), request.rawBody, headers)).toBe(NO_MATCH);
    expect(verifyWithNpm(standard.secret, request.rawBody.replace('u-1', 'u-2'), headers)).toBe(NO_MATCH);
    expect(
      await verifyWithPython([
        { secret: standard.secret, body: request.rawBody, headers },
        { secret: standardSecret(), body: request.rawBody, headers },
        { secret: standard.secret, body: request.rawBody.replace('u-1', 'u-2'), headers },
      ]),
    ).toEqual([request.json, NO_MATCH, NO_MATCH]);
    // The contract's headers stay, signed with the same secret.
    expect(verifyDelivery(standard.secret, request.rawBody, request.headers)).toBe(true);

    // The default signing is today's: the contract's headers alone.
    const plain = await delivered('combo');
    expect(Object.keys(plain.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    expect(verifyDelivery(combo.secret, plain.rawBody, plain.headers)).toBe(true);
  });

  it('signs with every secret valid during a rotation grace, space-separated, so both the old and the new secret verify', async () => {
    const oldSecret = standardSecret(32);
    const sub = await subscribe('rotated', { events: ['agent.step'], signing: 'standard_webhooks', secret: oldSecret });
    expect(sub.secret).toBe(oldSecret);
    const rotated = await rotate(sub.subscription_id, { grace_seconds: 600 });
    expect(rotated.json.code).toBe(0);
    const newSecret = rotated.json.data.secret as string;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.json.data).toMatchObject({ signing: 'standard_webhooks', previous_secret_valid_until: expect.any(String) });

    // Nothing was delivered to it yet, so no worker holds its settings from before the rotation.
    const request = await sendTest(sub.subscription_id);
    const headers = headersOf(request);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [newSecret, oldSecret]) expect(verifyWithNpm(secret, request.rawBody, headers)).toEqual(request.json);
    expect(verifyWithNpm(standardSecret(), request.rawBody, headers)).toBe(NO_MATCH);
    expect(
      await verifyWithPython([newSecret, oldSecret, standardSecret()].map((secret) => ({ secret, body: request.rawBody, headers }))),
    ).toEqual([request.json, request.json, NO_MATCH]);
    expect(verifyDelivery(newSecret, request.rawBody, request.headers) && verifyDelivery(oldSecret, request.rawBody, request.headers)).toBe(
      true,
    );
  });

  it('refuses a secret not of the Standard Webhooks form with 10001, and switches a subscription only once its secret is', async () => {
    const notStandard = [
      'a-shared-secret-of-some-length', // not whsec_
      standardSecret(16), // too short a key
      standardSecret(65), // too long a key
      `whsec_${'A'.repeat(30)}-_`, // base64url's alphabet
      standardSecret(32).replace(/=$/, ''), // unpadded
    ];
    for (const secret of notStandard) {
      const res = await api.call('POST', '/v1/webhook/subscriptions', {
        key: admin(),
        body: { url: consumer.url, events: ['agent.step'], signing: 'standard_webhooks', secret },
      });
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.secret' } });
    }
    expect(
      (
        await api.call('POST', '/v1/webhook/subscriptions', {
          key: admin(),
          body: { url: consumer.url, events: ['agent.step'], signing: 'hmac' },
        })
      ).json,
    ).toMatchObject({ code: 10001, data: { field: 'body.signing' } });

    // Rotating a Standard Webhooks subscription to another form: refused, the secret stays.
    const standard = await subscribe('refused', { events: ['agent.step'], signing: 'standard_webhooks' });
    const refused = await rotate(standard.subscription_id, { secret: 'a-shared-secret-of-some-length' });
    expect(refused.json).toMatchObject({ code: 10001, data: { field: 'body.secret' } });
    expect((await getSubscription(standard.subscription_id)).secret_last4).toBe(standard.secret_last4);

    // A subscription with a secret of another form switches only after a rotation gives it one.
    const combo = await subscribe('switched', { events: ['agent.step'], secret: 'a-shared-secret-of-some-length' });
    const update = (body: Record<string, unknown>) =>
      api.call('PUT', `/v1/webhook/subscriptions/${combo.subscription_id}`, { key: admin(), body });
    expect((await update({ signing: 'standard_webhooks' })).json).toMatchObject({ code: 10001, data: { field: 'body.signing' } });
    expect(await getSubscription(combo.subscription_id)).toMatchObject({ signing: 'combo' });
    const secret = (await rotate(combo.subscription_id, {})).json.data.secret as string;
    expect((await update({ signing: 'standard_webhooks' })).json).toMatchObject({ code: 0, data: { signing: 'standard_webhooks' } });
    const request = await sendTest(combo.subscription_id);
    expect(verifyWithNpm(secret, request.rawBody, headersOf(request))).toEqual(request.json);

    // A subscription stored before the field existed reads as `combo`.
    await api.services.mongo.db.collection('webhook_subscriptions').updateOne({ _id: combo.subscription_id }, { $unset: { signing: '' } });
    expect(await getSubscription(combo.subscription_id)).toMatchObject({ signing: 'combo' });
  });
});
