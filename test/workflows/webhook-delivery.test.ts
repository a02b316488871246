import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { composeWorker } from '../../workers/composition';
import { createLogger } from '../../common/logger';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, startConsumer } from '../support/consumer';
import { timeSkippingEnvironment } from '../support/temporal';
import { startTestWorker } from '../support/worker';
import { suiteWorkflows } from '../support/workflow-bundle';

/**
 * The delivery schedule on Temporal's time-skipping server with the real activities: real HTTP to a
 * local consumer, real attempt records in the database. Hours of timers pass in seconds.
 */
describe('webhook delivery schedule', () => {
  let env: TestWorkflowEnvironment;
  let api: TestApi;
  let consumer: Consumer;
  let subscriptionId: string;
  const taskQueue = 'webhook-schedule';
  let composed: ReturnType<typeof composeWorker>;

  beforeAll(async () => {
    env = await timeSkippingEnvironment();
    api = await startTestApi();
    composed = composeWorker({
      config: { ...api.config, ALLOW_PRIVATE_URLS: true },
      log: createLogger('silent', 'test'),
      db: api.services.mongo.db,
      es: api.services.es,
      temporal: env.client,
    });
    consumer = await startConsumer();
    const sub = await api.call('POST', '/v1/webhook/subscriptions', {
      key: api.adminKey,
      body: { url: consumer.url, events: ['session.created'] },
    });
    subscriptionId = sub.json.data.subscription_id;
  });
  afterAll(async () => {
    await consumer.close();
    await composed?.close();
    await api.close();
    await env?.teardown();
  });

  // No workflow cache: every task is replayed from history, as on a freshly started worker, and no
  // sticky queue ties a run to a worker that is gone.
  const newWorker = () =>
    Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      maxCachedWorkflows: 0,
      ...suiteWorkflows(),
      // Real time barely moves while the server skips hours, so a time-based cache would outlive edits.
      activities: createActivities({ ...composed.activities, webhookTargetCacheMs: 0 }),
    });

  /** A real recorded event (a new session's `session.created`) and its delivery record. */
  async function newDelivery() {
    const agent = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'a' } })).json.data;
    const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    const events = await api.call('GET', '/v1/events?event=session.created&page_size=100', { key: api.adminKey });
    const envelope = events.json.data.items.find((e: { data: { session_id: string } }) => e.data.session_id === session.session_id);
    const ids = await api.services.webhooks.ensureDelivery({ tenantId: 'default', subscriptionId, envelope });
    return { ...ids, input: { deliveryId: ids.deliveryId, tenantId: 'default', subscriptionId, envelope } };
  }
  const attemptsOf = async (deliveryId: string) =>
    (await api.call('GET', `/v1/webhook/deliveries/${deliveryId}`, { key: api.adminKey })).json.data;

  it('tries at once, then 30 s, 2 min, 10 min and 1 h after each failure, then dead-letters with every attempt', async () => {
    consumer.answerWith(() => ({ status: 500 }));
    const before = consumer.received.length;
    const { workflowId, deliveryId, input } = await newDelivery();
    const worker = await newWorker();
    const outcome = await worker.runUntil(env.client.workflow.execute(webhookDeliveryWorkflow, { workflowId, taskQueue, args: [input] }));
    expect(outcome).toEqual({ status: 'dead', attempts: 5 });

    const requests = consumer.received.slice(before);
    expect(requests).toHaveLength(5);
    expect(new Set(requests.map((r) => r.rawBody)).size).toBe(1);
    expect(requests.map((r) => r.headers['x-combo-attempt'])).toEqual(['1', '2', '3', '4', '5']);

    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const timers = (history.events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
      .filter((t): t is NonNullable<typeof t> => Boolean(t))
      .map((t) => Number(t.seconds));
    expect(timers).toEqual([30, 120, 600, 3600]);

    const dead = await api.call('GET', '/v1/webhook/dead-letters', { key: api.adminKey });
    const letter = dead.json.data.items.find((d: { delivery_id: string }) => d.delivery_id === deliveryId);
    expect(letter).toMatchObject({ status: 'dead', attempt_count: 5, event_id: input.envelope.event_id });
    expect(letter.dead_at).not.toBeNull();
    expect(letter.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    for (const a of letter.attempts) {
      expect(a).toMatchObject({ ok: false, status_code: 500, error: 'HTTP 500' });
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    }

    // Replayed by hand (on the regular server and worker), it reaches the consumer with the same event id.
    const regular = await startTestWorker(api, { dispatcher: false });
    try {
      consumer.answerWith(() => ({ status: 204 }));
      const replay = await api.call('POST', `/v1/webhook/dead-letters/${deliveryId}/replay`, { key: api.adminKey });
      expect(replay.json.data).toMatchObject({ replay_of: deliveryId, event_id: input.envelope.event_id });
      const delivered = await eventually(async () => {
        const d = await attemptsOf(replay.json.data.delivery_id);
        return d.status === 'delivered' ? d : undefined;
      });
      expect(delivered.attempts).toMatchObject([{ attempt: 1, ok: true, status_code: 204 }]);
      expect(consumer.received.at(-1)?.json.event_id).toBe(input.envelope.event_id);
      const again = await api.call('POST', `/v1/webhook/dead-letters/${replay.json.data.delivery_id}/replay`, { key: api.adminKey });
      expect(again.json.code).toBe(10005);
    } finally {
      await regular.stop();
    }
  });

  it('goes on from attempt 2 after the 30 s wait when the dispatcher made the first attempt, sending no attempt the log holds', async () => {
    consumer.answerWith(() => ({ status: 200 }));
    const before = consumer.received.length;
    const { workflowId, deliveryId, input } = await newDelivery();
    // The dispatcher's batch recorded a failed first attempt; a worker that died after sending the second recorded it too.
    const failed = { ok: false, status_code: 500, latency_ms: 3, error: 'HTTP 500' };
    await api.services.webhooks.recordAttempt(deliveryId, { attempt: 1, at: new Date().toISOString(), ...failed });
    await api.services.webhooks.recordAttempt(deliveryId, { attempt: 2, at: new Date().toISOString(), ...failed });
    const worker = await newWorker();
    const outcome = await worker.runUntil(
      env.client.workflow.execute(webhookDeliveryWorkflow, { workflowId, taskQueue, args: [{ ...input, firstAttempt: 2 }] }),
    );
    expect(outcome).toEqual({ status: 'delivered', attempts: 3 });
    // Attempt 2 was answered from the log; only attempt 3 was sent.
    expect(consumer.received.slice(before).map((r) => r.headers['x-combo-attempt'])).toEqual(['3']);
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const timers = (history.events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
      .filter((t): t is NonNullable<typeof t> => Boolean(t))
      .map((t) => Number(t.seconds));
    expect(timers).toEqual([30, 120]);
    const { attempts, status } = await attemptsOf(deliveryId);
    expect(status).toBe('delivered');
    expect(attempts.map((a: { attempt: number; ok: boolean }) => [a.attempt, a.ok])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
  });

  it('counts an answer slower than 2 seconds as a failure', async () => {
    const before = consumer.received.length;
    consumer.answerWith((n) => (n === before ? { status: 200, delayMs: 2_500 } : { status: 200 }));
    const { workflowId, deliveryId, input } = await newDelivery();
    const worker = await newWorker();
    const outcome = await worker.runUntil(env.client.workflow.execute(webhookDeliveryWorkflow, { workflowId, taskQueue, args: [input] }));
    expect(outcome).toEqual({ status: 'delivered', attempts: 2 });
    const { attempts } = await attemptsOf(deliveryId);
    expect(attempts[0]).toMatchObject({ attempt: 1, ok: false, status_code: null, error: 'no answer within 2000 ms' });
    expect(attempts[1]).toMatchObject({ attempt: 2, ok: true, status_code: 200, error: null });
  });

  it('loses no attempt and adds none when the worker is replaced mid-schedule', async () => {
    const before = consumer.received.length;
    consumer.answerWith((n) => ({ status: n - before < 2 ? 503 : 200 }));
    const { workflowId, deliveryId, input } = await newDelivery();

    const first = await newWorker();
    const firstRun = first.run();
    const handle = await env.client.workflow.start(webhookDeliveryWorkflow, { workflowId, taskQueue, args: [input] });
    await eventually(async () => ((await attemptsOf(deliveryId)).attempt_count === 1 ? true : undefined));
    // The retry's wait has begun once its timer is in the history: skipping time before that would skip nothing.
    await eventually(async () => ((await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes) ? true : undefined));
    await env.sleep('31 seconds');
    await eventually(async () => ((await attemptsOf(deliveryId)).attempt_count === 2 ? true : undefined));
    first.shutdown();
    await firstRun;

    const second = await newWorker();
    const outcome = await second.runUntil(handle.result());
    expect(outcome).toEqual({ status: 'delivered', attempts: 3 });
    expect(consumer.received.length - before).toBe(3);
    const { attempts, status } = await attemptsOf(deliveryId);
    expect(status).toBe('delivered');
    expect(attempts.map((a: { attempt: number; ok: boolean }) => [a.attempt, a.ok])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
  });

  it('ends without another attempt once the subscription is deleted', async () => {
    const before = consumer.received.length;
    consumer.answerWith(() => ({ status: 500 }));
    const sub = await api.call('POST', '/v1/webhook/subscriptions', {
      key: api.adminKey,
      body: { url: consumer.url, events: ['session.created'] },
    });
    const { input, workflowId } = await newDelivery();
    const own = { ...input, subscriptionId: sub.json.data.subscription_id };
    const worker = await newWorker();
    const run = worker.runUntil(async () => {
      const handle = await env.client.workflow.start(webhookDeliveryWorkflow, { workflowId: `${workflowId}-gone`, taskQueue, args: [own] });
      await eventually(async () => (consumer.received.length > before ? true : undefined));
      await api.call('DELETE', `/v1/webhook/subscriptions/${sub.json.data.subscription_id}`, { key: api.adminKey });
      return handle.result();
    });
    await expect(run).resolves.toEqual({ status: 'dropped', attempts: 1 });
    expect(consumer.received.length - before).toBe(1);
  });
});
