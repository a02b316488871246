import type { Document } from 'mongodb';
import { createMongoActivities } from '../../activities/mongo';
import { startTestApi, type TestApi } from '../support/api';

/**
 * Retention as an operator sets it: the maintenance purges delete ended webhook deliveries and
 * logged events past their days, keep what is younger and every delivery still being attempted,
 * and keep everything when the days are 0 (the default).
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({});
});
afterAll(async () => {
  await api.close();
});

const DAY_MS = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY_MS);

const delivery = (id: string, status: string, created: Date) => ({
  _id: id,
  tenant_id: 'default',
  subscription_id: 'whs_retention',
  event_id: `evt_${id}`,
  event: 'retention.test',
  envelope: { event_id: `evt_${id}`, event: 'retention.test', created_at: created.toISOString(), data: {} },
  status,
  attempt_count: status === 'pending' ? 0 : 1,
  attempts:
    status === 'pending' ? [] : [{ attempt: 1, ok: status === 'delivered', status_code: 200, latency_ms: 3, error: null, at: created }],
  workflow_id: `wf_${id}`,
  replay_of: null,
  replay_id: null,
  created_at: created,
  delivered_at: status === 'delivered' ? created : null,
  dead_at: status === 'dead' ? created : null,
});

const event = (id: string, at: Date) => ({
  _id: id,
  event: 'session.created',
  tenant_id: 'default',
  timestamp: at,
  data: { session_id: `ses_${id}` },
});

const listed = async (path: string, field: string) => {
  const res = await api.call('GET', path, { key: api.adminKey });
  expect(res.json.code).toBe(0);
  return (res.json.data.items as Record<string, string>[]).map((d) => d[field]).sort();
};

it('purges ended deliveries, dead letters and logged events past their retention, and nothing with 0 days', async () => {
  const db = api.services.mongo.db;
  await db
    .collection('webhook_deliveries')
    .insertMany([
      delivery('dlv_oldDelivered', 'delivered', ago(10)),
      delivery('dlv_newDelivered', 'delivered', ago(1)),
      delivery('dlv_oldDead', 'dead', ago(40)),
      delivery('dlv_youngDead', 'dead', ago(10)),
      delivery('dlv_oldPending', 'pending', ago(40)),
    ] as unknown as Document[]);
  await db.collection('events').insertMany([event('evt_old', ago(100)), event('evt_new', ago(1))] as unknown as Document[]);
  // The dispatcher's claims on first attempts (commands/webhook-dispatch.ts) go with the delivered deliveries' retention.
  await db.collection('webhook_delivery_claims').insertMany([
    { _id: 'dlv_oldClaim', created_at: ago(10) },
    { _id: 'dlv_newClaim', created_at: ago(1) },
  ] as unknown as Document[]);
  const claims = async () =>
    (
      await db
        .collection('webhook_delivery_claims')
        .find({ _id: { $in: ['dlv_oldClaim', 'dlv_newClaim'] } } as Document)
        .toArray()
    )
      .map((c) => String(c._id))
      .sort();

  const activities = (days: { delivered: number; dead: number; events: number }) =>
    createMongoActivities({
      ...api.services,
      streamRetentionHours: 24,
      inboundRetentionDays: 7,
      deliveryRetentionDays: days.delivered,
      deadLetterRetentionDays: days.dead,
      eventRetentionDays: days.events,
    });

  const keepAll = activities({ delivered: 0, dead: 0, events: 0 });
  expect(await keepAll.purgeExpiredDeliveries()).toBe(0);
  expect(await keepAll.purgeExpiredLoggedEvents()).toBe(0);
  expect(await listed('/v1/webhook/deliveries?event=retention.test', 'delivery_id')).toHaveLength(5);
  expect(await claims()).toEqual(['dlv_newClaim', 'dlv_oldClaim']);

  const retained = activities({ delivered: 7, dead: 30, events: 90 });
  expect(await retained.purgeExpiredDeliveries()).toBe(2);
  expect(await retained.purgeExpiredLoggedEvents()).toBe(1);
  expect(await listed('/v1/webhook/deliveries?event=retention.test', 'delivery_id')).toEqual([
    'dlv_newDelivered',
    'dlv_oldPending',
    'dlv_youngDead',
  ]);
  expect(await listed('/v1/webhook/dead-letters?event=retention.test', 'delivery_id')).toEqual(['dlv_youngDead']);
  expect(await claims()).toEqual(['dlv_newClaim']);
  const events = await listed('/v1/events?event=session.created', 'event_id');
  expect(events).toContain('evt_new');
  expect(events).not.toContain('evt_old');
  // A second run finds nothing more.
  expect(await retained.purgeExpiredDeliveries()).toBe(0);
});
