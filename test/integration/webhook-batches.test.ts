import type { ChildProcess } from 'node:child_process';
import { WorkflowNotFoundError } from '@temporalio/client';
import { randomToken } from '../../common/ids';
import { EventId, SubscriptionId, TenantId } from '../../common/search-attributes';
import { createEventLog } from '../../stores/event-log';
import { startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, type Received, startConsumer } from '../support/consumer';
import { startTestWorker } from '../support/worker';
import { killProcess, spawnWorkerProcess } from '../support/worker-process';

/**
 * The dispatcher's batch path on the real stack: recorded events get their first attempt in a batch
 * of the worker's dispatcher (no workflow), and only a delivery whose first attempt failed gets its
 * delivery workflow, which carries the retry schedule (shortened here) and the search attributes.
 * A worker killed mid-batch: its claimed deliveries are taken over after WEBHOOK_BATCH_TAKEOVER_MS.
 */
const WAIT_MS = 300;
const TAKEOVER_MS = 10_000;
/** Bound of the waits for deliveries to settle, and of the tests that make a hundred retrying workflows: generous, for a machine where every core is busy. */
const SETTLED_BOUND_MS = 180_000;
const TEST_BOUND_MS = 300_000;
/** A batch starts no first attempt later than this before its claim may be taken over (commands/webhook-dispatch.ts). */
const TAKEOVER_MARGIN_MS = 5_000;

let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
const consumers: Consumer[] = [];
beforeAll(async () => {
  api = await startTestApi({
    WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS: `${WAIT_MS},${WAIT_MS},${WAIT_MS},${WAIT_MS}`,
    WEBHOOK_BATCH_TAKEOVER_MS: String(TAKEOVER_MS),
    RATE_LIMIT_DEFAULT_PER_MIN: '100000',
  });
  worker = await startTestWorker(api);
});
afterAll(async () => {
  await worker.stop();
  for (const c of consumers) await c.close();
  await api.close();
});

const admin = () => api.adminKey;
const consumer = async (...args: Parameters<typeof startConsumer>) => {
  const c = await startConsumer(...args);
  consumers.push(c);
  return c;
};
const subscribe = async (url: string, events: string[]) =>
  (await api.call('POST', '/v1/webhook/subscriptions', { key: admin(), body: { url, events } })).json.data.subscription_id as string;

/** `count` events recorded in the log at once, as the API records them (one burst: the dispatcher takes them in one batch). */
async function recordEvents(event: 'agent.step' | 'tool.called' | 'tool.error', count: number): Promise<string[]> {
  const tag = randomToken(6);
  const timestamp = new Date().toISOString();
  const records = Array.from({ length: count }, (_, i) => ({
    event_id: `evt_batch${tag}${i}`,
    event,
    tenant_id: 'default',
    timestamp,
    data: { session_id: `ses_batch${tag}${i}`, action: 'step' },
  }));
  await createEventLog(api.services.mongo.db).appendMany(records);
  return records.map((r) => r.event_id);
}

interface Attempt {
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
}
interface DeliveryView {
  delivery_id: string;
  event_id: string;
  status: string;
  workflow_id: string;
  attempts: Attempt[];
}

const deliveriesOf = async (subscriptionId: string): Promise<DeliveryView[]> =>
  (await api.call('GET', `/v1/webhook/deliveries?subscription_id=${subscriptionId}&page_size=100`, { key: admin() })).json.data.items;
const allDelivered = (subscriptionId: string, count: number) =>
  eventually(async () => {
    const items = await deliveriesOf(subscriptionId);
    return items.length === count && items.every((d) => d.status === 'delivered') ? items : undefined;
  }, SETTLED_BOUND_MS);
const attemptsOf = (d: DeliveryView) => d.attempts.map((a) => [a.attempt, a.ok, a.status_code]);
const byEvent = (requests: Received[]) => {
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.json.event_id, (counts.get(r.json.event_id) ?? 0) + 1);
  return counts;
};
const firstAttempts = (requests: Received[]) => requests.filter((r) => r.headers['x-combo-attempt'] === '1');

it('makes first attempts in a batch: a 2xx is logged once with no workflow; a 5xx and a hanging receiver go on in a workflow on the schedule', async () => {
  const fine = await consumer(() => ({ status: 200 }));
  // Each event's first attempt fails (a 500, or no answer within the 2 s deadline), the second succeeds.
  const failing = await consumer((_, r) => ({ status: r.headers['x-combo-attempt'] === '1' ? 500 : 200 }));
  const hanging = await consumer((_, r) => (r.headers['x-combo-attempt'] === '1' ? { status: 200, delayMs: 4_000 } : { status: 200 }));
  const [fineSub, failingSub, hangingSub] = [
    await subscribe(fine.url, ['agent.step']),
    await subscribe(failing.url, ['agent.step']),
    await subscribe(hanging.url, ['agent.step']),
  ];
  const eventIds = await recordEvents('agent.step', 3);

  const delivered = await allDelivered(fineSub, 3);
  expect(fine.received).toHaveLength(3);
  expect(fine.received.map((r) => r.headers['x-combo-attempt'])).toEqual(['1', '1', '1']);
  expect(delivered.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
  for (const d of delivered) {
    expect(attemptsOf(d)).toEqual([[1, true, 200]]);
    // Delivered by the batch: no workflow was started for it.
    await expect(worker.client.workflow.getHandle(d.workflow_id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  }

  const retried = [...(await allDelivered(failingSub, 3)), ...(await allDelivered(hangingSub, 3))];
  for (const d of retried.slice(0, 3))
    expect(attemptsOf(d)).toEqual([
      [1, false, 500],
      [2, true, 200],
    ]);
  for (const d of retried.slice(3)) {
    expect(d.attempts.map((a) => [a.attempt, a.ok, a.error])).toEqual([
      [1, false, 'no answer within 2000 ms'],
      [2, true, null],
    ]);
  }
  // The second attempt came from the delivery's workflow, after the schedule's wait; an operator finds it by its search attributes.
  for (const c of [failing, hanging]) {
    expect([...byEvent(c.received).values()]).toEqual([2, 2, 2]);
    for (const eventId of eventIds) {
      const [first, second] = c.received.filter((r) => r.json.event_id === eventId);
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(WAIT_MS - 20);
    }
  }
  for (const d of retried) {
    // The delivery shows `delivered` as its activity records it, a moment before its workflow completes.
    const handle = worker.client.workflow.getHandle(d.workflow_id);
    await handle.result();
    const described = await handle.describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.typedSearchAttributes.get(TenantId)).toBe('default');
    expect(described.typedSearchAttributes.get(EventId)).toBe(d.event_id);
    expect([failingSub, hangingSub]).toContain(described.typedSearchAttributes.get(SubscriptionId));
  }
  // A delivery workflow's retries are found by the workflow's own query too.
  const wanted = retried
    .slice(0, 3)
    .map((d) => d.workflow_id)
    .sort();
  await eventually(async () => {
    const listed: string[] = [];
    for await (const w of worker.client.workflow.list({ query: `SubscriptionId = "${failingSub}"` })) listed.push(w.workflowId);
    return JSON.stringify(listed.sort()) === JSON.stringify(wanted) ? true : undefined;
  });
});

it(
  'hands what a batch could not start before its claim may be taken over to the workflows, sending each first attempt once',
  async () => {
    // This test runs the dispatcher's round itself: all its events in one batch.
    worker.dispatcher.stop();
    // Every first attempt goes unanswered past the 2 s deadline, so the batch's 32 lanes start a wave of
    // attempts every 2 s or later: at most 3 waves (96) start within TAKEOVER_MS - TAKEOVER_MARGIN_MS (5 s) of the claim.
    const EVENTS = 100;
    const STARTED_AT_MOST = 32 * Math.ceil((TAKEOVER_MS - TAKEOVER_MARGIN_MS) / 2_000);
    const slow = await consumer((_, r) => (r.headers['x-combo-attempt'] === '1' ? { status: 200, delayMs: 4_000 } : { status: 200 }));
    const subscriptionId = await subscribe(slow.url, ['tool.error']);
    const eventIds = await recordEvents('tool.error', EVENTS);
    expect(await worker.dispatcher.dispatchOnce()).toBeGreaterThanOrEqual(EVENTS);

    const delivered = await allDelivered(subscriptionId, EVENTS);
    expect(delivered.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
    // Each first attempt was sent once, by the batch or by the delivery's workflow, and logged once.
    const counts = byEvent(firstAttempts(slow.received));
    expect([...counts.keys()].sort()).toEqual([...eventIds].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    for (const d of delivered)
      expect(d.attempts.map((a) => [a.attempt, a.ok, a.error])).toEqual([
        [1, false, 'no answer within 2000 ms'],
        [2, true, null],
      ]);
    // The workflows of those the batch did not start began at attempt 1 (their input names no later first attempt).
    const startedAt = await Promise.all(
      delivered.map(async (d) => {
        const history = await worker.client.workflow.getHandle(d.workflow_id).fetchHistory();
        const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
        return (JSON.parse(Buffer.from(payload!).toString('utf8')) as { firstAttempt?: number }).firstAttempt ?? 1;
      }),
    );
    const fromAttemptOne = startedAt.filter((n) => n === 1).length;
    expect(fromAttemptOne).toBeGreaterThanOrEqual(EVENTS - STARTED_AT_MOST);
    expect(startedAt.filter((n) => n === 2).length + fromAttemptOne).toBe(EVENTS);
  },
  TEST_BOUND_MS,
);

it(
  'redelivers what a worker killed mid-batch had in flight, at most once more, and nothing it had recorded',
  async () => {
    // The built worker process alone dispatches until it is killed (the in-process dispatcher was stopped before).
    worker.dispatcher.stop();
    const EVENTS = 60;
    const ANSWERED_AT_ONCE = 20;
    let killed = false;
    // The first requests are answered at once; the rest hang (past the 2 s deadline) until the worker is killed.
    const receiver = await consumer((n) => (killed || n < ANSWERED_AT_ONCE ? { status: 200 } : { status: 200, delayMs: 10_000 }));
    const subscriptionId = await subscribe(receiver.url, ['tool.called']);
    let child: ChildProcess | undefined = await spawnWorkerProcess(api.config);
    let second: Awaited<ReturnType<typeof startTestWorker>> | undefined;
    try {
      const eventIds = await recordEvents('tool.called', EVENTS);
      // Mid-batch: the quick answers are recorded and more requests are waiting for their answer.
      const recordedBeforeKill = await eventually(async () => {
        if (receiver.received.length <= ANSWERED_AT_ONCE) return undefined;
        const items = await deliveriesOf(subscriptionId);
        const recorded = items.filter((d) => d.attempts.length > 0);
        return recorded.length >= ANSWERED_AT_ONCE ? recorded : undefined;
      });
      await killProcess(child);
      child = undefined;
      killed = true;
      const sentBeforeKill = new Set(firstAttempts(receiver.received).map((r) => r.json.event_id as string));
      const settled = new Set((await deliveriesOf(subscriptionId)).filter((d) => d.attempts.length > 0).map((d) => d.event_id));
      expect(settled.size).toBeGreaterThanOrEqual(recordedBeforeKill.length);
      const inFlight = [...sentBeforeKill].filter((id) => !settled.has(id));
      expect(inFlight.length).toBeGreaterThan(0);

      // Another worker's dispatcher takes the claimed deliveries over (after WEBHOOK_BATCH_TAKEOVER_MS) in their workflows.
      second = await startTestWorker(api);
      const delivered = await allDelivered(subscriptionId, EVENTS);
      expect(delivered.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
      // An attempt that timed out before the kill is recorded and retried as attempt 2: only first attempts count here.
      const counts = byEvent(firstAttempts(receiver.received));
      // Every event arrived; those recorded before the kill once, those in flight at most twice, the rest once.
      expect([...counts.keys()].sort()).toEqual([...eventIds].sort());
      for (const [eventId, count] of counts) {
        if (settled.has(eventId) || !sentBeforeKill.has(eventId)) expect({ eventId, count }).toEqual({ eventId, count: 1 });
        else expect(count).toBeLessThanOrEqual(2);
      }
      expect(firstAttempts(receiver.received).length - EVENTS).toBeLessThanOrEqual(inFlight.length);
      // A taken-over delivery is the work of its workflow, found by its search attributes.
      const takenOver = delivered.find((d) => d.event_id === inFlight[0]);
      const described = await second.client.workflow.getHandle(takenOver!.workflow_id).describe();
      expect(described.typedSearchAttributes.get(EventId)).toBe(inFlight[0]);
      expect(described.typedSearchAttributes.get(SubscriptionId)).toBe(subscriptionId);
    } finally {
      if (child) await killProcess(child);
      await second?.stop();
    }
  },
  TEST_BOUND_MS,
);
