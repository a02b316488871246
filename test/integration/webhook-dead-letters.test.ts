import { startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, startConsumer } from '../support/consumer';
import { startTestWorker } from '../support/worker';

/**
 * The whole outbound schedule on the real stack, shortened with WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS:
 * a receiver that keeps failing gets five attempts, the delivery lands in the dead-letter queue with
 * every attempt, and replaying the dead letter to the receiver, now answering 2xx, delivers it.
 */
const WAIT_MS = 300;

let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let consumer: Consumer;
beforeAll(async () => {
  api = await startTestApi({
    WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS: `${WAIT_MS},${WAIT_MS},${WAIT_MS},${WAIT_MS}`,
    // The test polls the API every 50 ms for up to 30 s: far above the default 300 calls a minute.
    RATE_LIMIT_DEFAULT_PER_MIN: '100000',
  });
  worker = await startTestWorker(api);
  consumer = await startConsumer(() => ({ status: 500 }));
});
afterAll(async () => {
  await worker.stop();
  await consumer.close();
  await api.close();
});

const admin = () => api.adminKey;

interface Attempt {
  attempt: number;
  ok: boolean;
  status_code: number | null;
  at: string;
}

it('makes five attempts on the short schedule, dead-letters the delivery, and a dead-letter replay delivers it', async () => {
  const sub = (
    await api.call('POST', '/v1/webhook/subscriptions', { key: admin(), body: { url: consumer.url, events: ['session.created'] } })
  ).json.data;
  const agent = (await api.call('POST', '/v1/combo/agents', { key: admin(), body: { name: 'dead-letters' } })).json.data;
  const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: admin(), body: { user_id: 'u-1' } })).json
    .data;

  // Five attempts reach the failing receiver, then nothing more: the delivery is dead.
  const dead = await eventually(async () => {
    const res = await api.call('GET', '/v1/webhook/dead-letters', { key: admin() });
    expect(res.json.code).toBe(0);
    return res.json.data.items.find((d: { subscription_id: string }) => d.subscription_id === sub.subscription_id);
  }, 30_000);
  const requests = consumer.received.filter((r) => r.json.data.session_id === session.session_id);
  expect(requests).toHaveLength(5);
  expect(requests.map((r) => r.headers['x-combo-attempt'])).toEqual(['1', '2', '3', '4', '5']);
  expect(new Set(requests.map((r) => r.json.event_id)).size).toBe(1);
  // The waits were the test schedule's (each at least WAIT_MS), not the contract's 30 s and more.
  for (let i = 1; i < requests.length; i++) expect(requests[i]!.at - requests[i - 1]!.at).toBeGreaterThanOrEqual(WAIT_MS - 20);
  expect(requests[4]!.at - requests[0]!.at).toBeLessThan(20_000);

  expect(dead).toMatchObject({
    status: 'dead',
    attempt_count: 5,
    replay_of: null,
    replayed_by: null,
    event_id: requests[0]!.json.event_id,
  });
  const deadLetterIds = async (query: string) =>
    (
      (await api.call('GET', `/v1/webhook/dead-letters?subscription_id=${sub.subscription_id}&${query}`, { key: admin() })).json.data
        .items as {
        delivery_id: string;
      }[]
    ).map((d) => d.delivery_id);
  expect(await deadLetterIds('replayed=false')).toEqual([dead.delivery_id]);
  expect(await deadLetterIds('replayed=true')).toEqual([]);
  expect(dead.attempts.map((a: Attempt) => [a.attempt, a.ok, a.status_code])).toEqual([
    [1, false, 500],
    [2, false, 500],
    [3, false, 500],
    [4, false, 500],
    [5, false, 500],
  ]);
  const got = await api.call('GET', `/v1/webhook/deliveries/${dead.delivery_id}`, { key: admin() });
  expect(got.json.data).toMatchObject({ status: 'dead', attempt_count: 5 });

  // The receiver recovers; the dead letter is replayed by hand: a fresh delivery of the same event.
  consumer.answerWith(() => ({ status: 200 }));
  const replay = await api.call('POST', `/v1/webhook/dead-letters/${dead.delivery_id}/replay`, { key: admin() });
  expect(replay.json.code).toBe(0);
  expect(replay.json.data).toMatchObject({ replay_of: dead.delivery_id, subscription_id: sub.subscription_id, event_id: dead.event_id });
  expect(replay.json.data.delivery_id).not.toBe(dead.delivery_id);
  const delivered = await eventually(async () => {
    const res = await api.call('GET', `/v1/webhook/deliveries/${replay.json.data.delivery_id}`, { key: admin() });
    return res.json.data.status === 'delivered' ? res.json.data : undefined;
  });
  expect(delivered).toMatchObject({ attempt_count: 1, replay_of: dead.delivery_id });
  expect(delivered.attempts.map((a: Attempt) => [a.attempt, a.ok, a.status_code])).toEqual([[1, true, 200]]);
  const after = consumer.received.filter((r) => r.json.data.session_id === session.session_id);
  expect(after).toHaveLength(6);
  expect(after[5]!.json.event_id).toBe(dead.event_id);
  expect(after[5]!.headers['x-combo-delivery-id']).toBe(replay.json.data.delivery_id);

  // The dead letter stays where it was, marked with its replay; replaying it again returns the same replay.
  const marked = await api.call('GET', `/v1/webhook/deliveries/${dead.delivery_id}`, { key: admin() });
  expect(marked.json.data).toMatchObject({ status: 'dead', replayed_by: replay.json.data.delivery_id });
  expect(await deadLetterIds('replayed=false')).toEqual([]);
  expect(await deadLetterIds('replayed=true')).toEqual([dead.delivery_id]);
  const again = await api.call('POST', `/v1/webhook/dead-letters/${dead.delivery_id}/replay`, { key: admin() });
  expect(again.json.data.delivery_id).toBe(replay.json.data.delivery_id);
  // A delivery that is not dead cannot be replayed by hand.
  const notDead = await api.call('POST', `/v1/webhook/dead-letters/${replay.json.data.delivery_id}/replay`, { key: admin() });
  expect(notDead.json).toMatchObject({ code: 10005, data: { status: 'delivered' } });
  expect((await api.call('GET', '/v1/webhook/dead-letters?replayed=maybe', { key: admin() })).json.code).toBe(10001);

  // The delivery log narrows by event name and creation time.
  const logIds = async (query: string) =>
    (
      (await api.call('GET', `/v1/webhook/deliveries?subscription_id=${sub.subscription_id}&${query}`, { key: admin() })).json.data
        .items as {
        delivery_id: string;
      }[]
    ).map((d) => d.delivery_id);
  const both = [replay.json.data.delivery_id, dead.delivery_id];
  expect(await logIds('event=session.created')).toEqual(both);
  expect(await logIds('event=webhook.test')).toEqual([]);
  const replayCreated = replay.json.data.created_at as string;
  expect(await logIds(`since=${encodeURIComponent(replayCreated)}`)).toEqual([replay.json.data.delivery_id]);
  expect(await logIds(`until=${encodeURIComponent(replayCreated)}`)).toEqual([dead.delivery_id]);
  expect((await api.call('GET', '/v1/webhook/deliveries?since=yesterday', { key: admin() })).json.code).toBe(10001);
});
