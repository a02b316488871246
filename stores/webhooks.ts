import { createHash, randomBytes } from 'node:crypto';
import type { Collection, Db, Filter, OptionalUnlessRequiredId } from 'mongodb';
import { conflict, invalid, notFound } from '../common/errors';
import type { DeliveryEnvelope, EventName } from '../common/events';

export type { DeliveryEnvelope };
import { newId, randomToken } from '../common/ids';
import type {
  CreateSubscriptionBody,
  Delivery,
  DeliveryAttempt,
  Subscription,
  UpdateSubscriptionBody,
  WebhookSigning,
} from '../common/schemas/webhooks';
import {
  isStandardWebhooksSecret,
  STANDARD_WEBHOOKS_SECRET_PREFIX,
  STANDARD_WEBHOOKS_SECRET_RULE,
} from '../common/standard-webhooks-secret';
import { isDuplicateKey } from './mongo';
import { dateRange, findPage, type PageRequest } from './pagination';
import type { SecretBox } from './secret-box';

interface SubscriptionDoc {
  _id: string;
  tenant_id: string;
  url: string;
  events: EventName[];
  description: string;
  enabled: boolean;
  /** Absent on subscriptions made before it existed: `combo`. */
  signing?: WebhookSigning;
  secret_sealed: string;
  secret_last4: string;
  /**
   * The secret replaced by the last rotation, sealed like the current one, signing beside it until
   * `previous_secret_valid_until` (compared on read: no TTL index). Absent on subscriptions never rotated with a grace.
   */
  previous_secret_sealed?: string | null;
  previous_secret_valid_until?: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Where and how a delivery is sent. */
export interface DeliveryTarget {
  url: string;
  secret: string;
  /** The replaced secret during a rotation's grace: deliveries until `validUntil` carry its signature too. */
  previous: { secret: string; validUntil: Date } | null;
  enabled: boolean;
  signing: WebhookSigning;
}

interface AttemptDoc extends Omit<DeliveryAttempt, 'at'> {
  at: Date;
}

interface DeliveryDoc {
  _id: string;
  tenant_id: string;
  subscription_id: string;
  event_id: string;
  event: string;
  envelope: DeliveryEnvelope;
  status: Delivery['status'];
  attempt_count: number;
  /** Written only by the delivery's own workflow, one attempt at a time. */
  attempts: AttemptDoc[];
  workflow_id: string;
  replay_of: string | null;
  replay_id: string | null;
  /** On a dead letter: the delivery that last replayed it by hand (absent on letters dead before this was recorded). */
  replayed_by?: string | null;
  created_at: Date;
  delivered_at: Date | null;
  dead_at: Date | null;
}

export interface DeliveryFilter {
  event_id?: string;
  event?: string;
  subscription_id?: string;
  status?: Delivery['status'];
  since?: string;
  until?: string;
  replayed?: boolean;
}

export interface NewDelivery {
  tenantId: string;
  subscriptionId: string;
  envelope: DeliveryEnvelope;
  replayOf?: string;
  replayId?: string;
}

const hash = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);

/** One (event, subscription) pair has one delivery id; a replay has its own. */
function deliveryIdFor(d: Pick<NewDelivery, 'subscriptionId' | 'envelope' | 'replayOf' | 'replayId'>): string {
  return `dlv_${hash(d.envelope.event_id, d.subscriptionId, d.replayOf ?? '', d.replayId ?? '')}`;
}
const deliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/** The end of the replaced secret's grace, if it is still on at `now`. */
const previousValidUntil = (d: SubscriptionDoc, now: Date): Date | null =>
  d.previous_secret_sealed && d.previous_secret_valid_until && d.previous_secret_valid_until > now ? d.previous_secret_valid_until : null;

const signingOf = (d: SubscriptionDoc): WebhookSigning => d.signing ?? 'combo';

/**
 * A new secret: Standard Webhooks signing needs `whsec_` + base64 (32 random bytes, the HMAC-SHA256
 * key length); `combo` keeps the form it always had.
 */
const newSecret = (signing: WebhookSigning) =>
  signing === 'standard_webhooks' ? `${STANDARD_WEBHOOKS_SECRET_PREFIX}${randomBytes(32).toString('base64')}` : `whsec_${randomToken(40)}`;

/** Which subscriptions a rotation checked against `signing` may still replace the secret of (absent `signing` is `combo`). */
const signingFilter = (signing: WebhookSigning): Filter<SubscriptionDoc> =>
  signing === 'standard_webhooks' ? { signing } : { signing: { $ne: 'standard_webhooks' } };

const presentSubscription = (d: SubscriptionDoc): Subscription => ({
  subscription_id: d._id,
  url: d.url,
  events: d.events,
  description: d.description,
  enabled: d.enabled,
  signing: signingOf(d),
  secret_last4: d.secret_last4,
  previous_secret_valid_until: previousValidUntil(d, new Date())?.toISOString() ?? null,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});

const presentAttempt = (a: AttemptDoc): DeliveryAttempt => ({
  attempt: a.attempt,
  at: a.at.toISOString(),
  ok: a.ok,
  status_code: a.status_code,
  latency_ms: a.latency_ms,
  error: a.error,
});

export function createWebhookStore(db: Db, secrets: SecretBox) {
  const subscriptions = db.collection<SubscriptionDoc>('webhook_subscriptions');
  const deliveries = db.collection<DeliveryDoc>('webhook_deliveries');
  /**
   * The dispatcher's claims on (event, subscription) pairs whose first attempt it makes: the unique
   * `_id` (the delivery id) lets one process win. Kept as long as the deliveries (retention purges them).
   */
  const claims = db.collection<{ _id: string; created_at: Date }>('webhook_delivery_claims');

  async function getDoc(tenantId: string, id: string): Promise<SubscriptionDoc> {
    const doc = await subscriptions.findOne({ _id: id, tenant_id: tenantId });
    if (!doc) throw notFound('webhook subscription', id);
    return doc;
  }

  async function getDeliveryDoc(tenantId: string, id: string): Promise<DeliveryDoc> {
    const doc = await deliveries.findOne({ _id: id, tenant_id: tenantId });
    if (!doc) throw notFound('webhook delivery', id);
    return doc;
  }

  function presentDelivery(d: DeliveryDoc): Delivery {
    return {
      delivery_id: d._id,
      subscription_id: d.subscription_id,
      event_id: d.event_id,
      event: d.event,
      status: d.status,
      attempt_count: d.attempt_count,
      attempts: [...d.attempts].sort((a, b) => a.attempt - b.attempt).map(presentAttempt),
      workflow_id: d.workflow_id,
      replay_of: d.replay_of,
      replay_id: d.replay_id,
      replayed_by: d.replayed_by ?? null,
      created_at: d.created_at.toISOString(),
      delivered_at: d.delivered_at?.toISOString() ?? null,
      dead_at: d.dead_at?.toISOString() ?? null,
    };
  }

  const newDeliveryDoc = (d: NewDelivery): DeliveryDoc => {
    const id = deliveryIdFor(d);
    return {
      _id: id,
      tenant_id: d.tenantId,
      subscription_id: d.subscriptionId,
      event_id: d.envelope.event_id,
      event: d.envelope.event,
      envelope: d.envelope,
      status: 'pending',
      attempt_count: 0,
      attempts: [],
      workflow_id: deliveryWorkflowId(id),
      replay_of: d.replayOf ?? null,
      replay_id: d.replayId ?? null,
      created_at: new Date(),
      delivered_at: null,
      dead_at: null,
    };
  };

  /**
   * Inserts documents whose `_id` may exist already (one write for many); returns, in order, whether
   * this call created each. The store's unique `_id` decides: of several processes inserting the
   * same one at once, exactly one creates it.
   */
  async function insertNew<T extends { _id: string }>(collection: Collection<T>, docs: T[]): Promise<boolean[]> {
    const existing = new Set<number>();
    if (docs.length > 0) {
      try {
        await collection.insertMany(docs as OptionalUnlessRequiredId<T>[], { ordered: false });
      } catch (err) {
        const writeErrors = (err as { writeErrors?: Array<{ code: number; index: number }> }).writeErrors;
        const onlyDuplicates = isDuplicateKey(err) && (!writeErrors || writeErrors.every((e) => e.code === 11000));
        if (!onlyDuplicates) throw err;
        // A duplicate error without the list of writes: none of them is known to be new.
        if (!writeErrors) docs.forEach((_, i) => existing.add(i));
        else for (const e of writeErrors) existing.add(e.index);
      }
    }
    return docs.map((_, i) => !existing.has(i));
  }

  /** Inserts the delivery records that do not exist yet (one write for many); returns ids in order, each with whether this call created it. */
  async function insertDeliveries(list: NewDelivery[]): Promise<Array<{ deliveryId: string; workflowId: string; created: boolean }>> {
    const docs = list.map(newDeliveryDoc);
    const created = await insertNew(deliveries, docs);
    return docs.map((d, i) => ({ deliveryId: d._id, workflowId: d.workflow_id, created: created[i]! }));
  }

  /** Inserts the delivery records that do not exist yet (one write for many); returns ids in order. */
  async function ensureDeliveries(list: NewDelivery[]): Promise<Array<{ deliveryId: string; workflowId: string }>> {
    return (await insertDeliveries(list)).map(({ deliveryId, workflowId }) => ({ deliveryId, workflowId }));
  }

  /** Appends one attempt; the filter makes it idempotent per (delivery, attempt). */
  const attemptWrite = (deliveryId: string, attempt: DeliveryAttempt) => ({
    filter: { _id: deliveryId, 'attempts.attempt': { $ne: attempt.attempt } } as Filter<DeliveryDoc>,
    update: {
      $push: { attempts: { ...attempt, at: new Date(attempt.at) } },
      $set: {
        attempt_count: attempt.attempt,
        ...(attempt.ok ? { status: 'delivered' as const, delivered_at: new Date(attempt.at) } : {}),
      },
    },
  });

  return {
    /** Each tenant's enabled subscriptions: the event names they ask for and when they were created. */
    async enabledByTenant(tenantIds: string[]): Promise<Map<string, Array<{ id: string; events: EventName[]; createdAt: Date }>>> {
      const entries = await Promise.all(
        tenantIds.map(async (tenantId) => {
          const docs = await subscriptions
            .find({ tenant_id: tenantId, enabled: true }, { projection: { events: 1, created_at: 1 } })
            .toArray();
          return [tenantId, docs.map((d) => ({ id: d._id, events: d.events, createdAt: d.created_at }))] as const;
        }),
      );
      return new Map(entries);
    },

    async createSubscription(tenantId: string, body: CreateSubscriptionBody) {
      const secret = body.secret ?? newSecret(body.signing);
      const now = new Date();
      const doc: SubscriptionDoc = {
        _id: newId('whs'),
        tenant_id: tenantId,
        url: body.url,
        events: body.events,
        description: body.description,
        enabled: body.enabled,
        signing: body.signing,
        secret_sealed: secrets.seal(secret),
        secret_last4: secret.slice(-4),
        previous_secret_sealed: null,
        previous_secret_valid_until: null,
        created_at: now,
        updated_at: now,
      };
      await subscriptions.insertOne(doc);
      return { ...presentSubscription(doc), secret };
    },

    listSubscriptions: (tenantId: string, page: PageRequest) => findPage(subscriptions, { tenant_id: tenantId }, page, presentSubscription),

    getSubscription: async (tenantId: string, id: string) => presentSubscription(await getDoc(tenantId, id)),

    /**
     * Switching to Standard Webhooks signing needs a secret of its form (10001 otherwise); the switch
     * applies only to the secret checked (a rotation at the same moment: 10005).
     */
    async updateSubscription(tenantId: string, id: string, changes: UpdateSubscriptionBody) {
      const filter: Filter<SubscriptionDoc> = { _id: id, tenant_id: tenantId };
      if (changes.signing === 'standard_webhooks') {
        const current = await getDoc(tenantId, id);
        if (!isStandardWebhooksSecret(secrets.open(current.secret_sealed)))
          throw invalid(
            `body.signing: standard_webhooks needs ${STANDARD_WEBHOOKS_SECRET_RULE}; rotate the secret first (rotate-secret generates one)`,
            { field: 'body.signing' },
          );
        filter.secret_sealed = current.secret_sealed;
      }
      const doc = await subscriptions.findOneAndUpdate(
        filter,
        { $set: { ...changes, updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (!doc && filter.secret_sealed)
        throw conflict(`webhook subscription ${id} was rotated or deleted at the same time; try again`, { subscription_id: id });
      if (!doc) throw notFound('webhook subscription', id);
      return presentSubscription(doc);
    },

    /**
     * Takes effect from the next attempt on: deliveries in flight sign with the new secret. With a
     * grace, the replaced secret keeps signing beside it until the grace ends (0: not at all); a
     * secret replaced earlier stops at once. Two rotations at the same moment: the one that no
     * longer finds the secret it replaces is 10005 (as is one that meets a change of `signing`).
     * A Standard Webhooks subscription's secret must keep that form (10001).
     */
    async rotateSecret(tenantId: string, id: string, { secret: given, graceSeconds }: { secret?: string; graceSeconds: number }) {
      const doc = await getDoc(tenantId, id);
      const signing = signingOf(doc);
      if (given !== undefined && signing === 'standard_webhooks' && !isStandardWebhooksSecret(given))
        throw invalid(`body.secret: must be ${STANDARD_WEBHOOKS_SECRET_RULE}: the subscription signs with standard_webhooks`, {
          field: 'body.secret',
        });
      const secret = given ?? newSecret(signing);
      const now = new Date();
      const changes = {
        secret_sealed: secrets.seal(secret),
        secret_last4: secret.slice(-4),
        previous_secret_sealed: graceSeconds > 0 ? doc.secret_sealed : null,
        previous_secret_valid_until: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
        updated_at: now,
      };
      const { matchedCount } = await subscriptions.updateOne(
        { _id: id, tenant_id: tenantId, secret_sealed: doc.secret_sealed, ...signingFilter(signing) },
        { $set: changes },
      );
      if (matchedCount === 0)
        throw conflict(`webhook subscription ${id} was rotated or deleted at the same time; try again`, { subscription_id: id });
      return { ...presentSubscription({ ...doc, ...changes }), secret };
    },

    async deleteSubscription(tenantId: string, id: string): Promise<void> {
      const { deletedCount } = await subscriptions.deleteOne({ _id: id, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('webhook subscription', id);
    },

    /** Where and how to deliver; null when the subscription is gone. Secrets are opened only here. */
    async target(tenantId: string, id: string): Promise<DeliveryTarget | null> {
      const doc = await subscriptions.findOne({ _id: id, tenant_id: tenantId });
      if (!doc) return null;
      const graceUntil = previousValidUntil(doc, new Date());
      return {
        url: doc.url,
        secret: secrets.open(doc.secret_sealed),
        previous: graceUntil ? { secret: secrets.open(doc.previous_secret_sealed!), validUntil: graceUntil } : null,
        enabled: doc.enabled,
        signing: signingOf(doc),
      };
    },

    /** Enabled subscriptions of the tenant that asked for this event and existed when it happened. */
    async matching(tenantId: string, event: string, at: Date, onlySubscription?: string): Promise<string[]> {
      const filter: Filter<SubscriptionDoc> = { tenant_id: tenantId, enabled: true, events: event as EventName, created_at: { $lte: at } };
      if (onlySubscription) filter._id = onlySubscription;
      const docs = await subscriptions.find(filter, { projection: { _id: 1 } }).toArray();
      return docs.map((d) => d._id);
    },

    ensureDeliveries,

    async ensureDelivery(d: NewDelivery): Promise<{ deliveryId: string; workflowId: string }> {
      return (await ensureDeliveries([d]))[0]!;
    },

    /**
     * Appends one attempt; the filter makes it idempotent per (delivery, attempt), so a retried
     * activity does not add an attempt.
     */
    async recordAttempt(deliveryId: string, attempt: DeliveryAttempt): Promise<void> {
      const { filter, update } = attemptWrite(deliveryId, attempt);
      await deliveries.updateOne(filter, update);
    },

    /**
     * Claims (event, subscription) pairs for their first attempt (one write for many): `created` says
     * this call claimed the pair, and with it the first attempt is this caller's to make.
     */
    async claimDeliveries(list: NewDelivery[]): Promise<Array<{ deliveryId: string; workflowId: string; created: boolean }>> {
      const ids = list.map(deliveryIdFor);
      const now = new Date();
      const created = await insertNew(
        claims,
        ids.map((id) => ({ _id: id, created_at: now })),
      );
      return ids.map((id, i) => ({ deliveryId: id, workflowId: deliveryWorkflowId(id), created: created[i]! }));
    },

    /** When each claimed pair was claimed, by delivery id; a pair missing from the map is not claimed (or was released). */
    async claimTimes(ids: string[]): Promise<Map<string, Date>> {
      if (ids.length === 0) return new Map();
      const docs = await claims.find({ _id: { $in: ids } }).toArray();
      return new Map(docs.map((d) => [d._id, d.created_at]));
    },

    /**
     * Where deliveries stand, by id (one read for many): status, how many attempts they made and when
     * their record was created. An id missing from the map has no record (purged).
     */
    async deliveriesProgress(ids: string[]): Promise<Map<string, { status: Delivery['status']; attemptCount: number; createdAt: Date }>> {
      if (ids.length === 0) return new Map();
      const docs = await deliveries.find({ _id: { $in: ids } }, { projection: { status: 1, attempt_count: 1, created_at: 1 } }).toArray();
      return new Map(docs.map((d) => [d._id, { status: d.status, attemptCount: d.attempt_count, createdAt: d.created_at }]));
    },

    /** Attempt `attempt` of the delivery as recorded, or null when it was not recorded (yet). */
    async recordedAttempt(deliveryId: string, attempt: number): Promise<DeliveryAttempt | null> {
      const doc = await deliveries.findOne({ _id: deliveryId }, { projection: { attempts: 1 } });
      const found = doc?.attempts.find((a) => a.attempt === attempt);
      return found ? presentAttempt(found) : null;
    },

    /**
     * Records many deliveries with their first attempt (a batch of the dispatcher) in one insert, far
     * cheaper than an update each; a delivery recorded already (taken over meanwhile) gets its first
     * attempt as recordAttempt adds it, unless it holds one.
     */
    async recordFirstAttempts(list: Array<{ delivery: NewDelivery; attempt: DeliveryAttempt }>): Promise<void> {
      if (list.length === 0) return;
      const docs = list.map(({ delivery, attempt }) => {
        const at = new Date(attempt.at);
        return {
          ...newDeliveryDoc(delivery),
          attempts: [{ ...attempt, at }],
          attempt_count: attempt.attempt,
          ...(attempt.ok ? { status: 'delivered' as const, delivered_at: at } : {}),
        };
      });
      const created = await insertNew(deliveries, docs);
      const existing = list.filter((_, i) => !created[i]);
      if (existing.length > 0)
        await deliveries.bulkWrite(
          existing.map(({ delivery, attempt }) => ({ updateOne: attemptWrite(deliveryIdFor(delivery), attempt) })),
          { ordered: false },
        );
    },

    async markDead(deliveryId: string): Promise<void> {
      await deliveries.updateOne({ _id: deliveryId }, { $set: { status: 'dead', dead_at: new Date() } });
    },

    getDeliveryDoc,

    getDelivery: async (tenantId: string, id: string) => presentDelivery(await getDeliveryDoc(tenantId, id)),

    /** Marks a dead letter as replayed by hand by `replayId` (the latest replay wins). */
    async markReplayed(tenantId: string, deadId: string, replayId: string): Promise<void> {
      await deliveries.updateOne({ _id: deadId, tenant_id: tenantId, status: 'dead' }, { $set: { replayed_by: replayId } });
    },

    /** Newest first; `since`/`until` bound `created_at`; `replayed` narrows dead letters to those replayed by hand or not. */
    async listDeliveries(tenantId: string, query: PageRequest & DeliveryFilter) {
      const filter: Filter<DeliveryDoc> = { tenant_id: tenantId };
      if (query.event_id) filter.event_id = query.event_id;
      if (query.event) filter.event = query.event;
      if (query.subscription_id) filter.subscription_id = query.subscription_id;
      if (query.status) filter.status = query.status;
      if (query.replayed !== undefined) filter.replayed_by = query.replayed ? { $type: 'string' } : { $not: { $type: 'string' } };
      const created = dateRange(query);
      if (created) filter.created_at = created;
      return findPage(deliveries, filter, query, presentDelivery);
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
