import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { conflict, notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { CreateIntegrationBody, Integration, IntegrationChannel, IntegrationWithSecret } from '../common/schemas/integrations';
import type { DispatchedTask, InboundEvent } from '../common/inbound-event';
import { isDuplicateKey } from './mongo';
import { findPage, type NamedPageRequest, tenantNamed } from './pagination';
import type { SecretBox } from './secret-box';

interface IntegrationDoc {
  _id: string;
  tenant_id: string;
  channel: IntegrationChannel;
  name: string;
  secret_sealed: string;
  secret_last4: string;
  /** The secret replaced by the last rotation, verifying until `previous_secret_valid_until`. */
  previous_secret_sealed: string | null;
  previous_secret_valid_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * One inbound call seen: `_id` = `<integration_id>:<event_id>`, so a repeat of the event id fails
 * the insert (a lookup by `_id`, cheap on FerretDB). The body is kept as text, not as a document:
 * senders' keys may hold `.` or `$`, which the store refuses; text the store cannot hold (NUL)
 * has been cleaned out of it before.
 */
interface InboundEventDoc {
  _id: string;
  tenant_id: string;
  integration_id: string;
  trigger_id: string | null;
  event: Omit<InboundEvent, 'payload'>;
  /** The body's JSON (decompressed, decoded, cleaned); null when larger than MAX_STORED_PAYLOAD_BYTES. */
  payload_text: string | null;
  payload_bytes: number;
  received_at: Date;
  /** What the dispatch started; null until it returned. */
  tasks: DispatchedTask[] | null;
}

/** Bodies larger than this are not kept with the seen event id (the event is, without its payload). */
const MAX_STORED_PAYLOAD_BYTES = 256 * 1024;

/** Who an inbound call claims to come from, and the secrets its signature may be made with. */
export interface InboundVerifier {
  integrationId: string;
  tenantId: string;
  channel: IntegrationChannel;
  /** The current secret first, then the previous one while its grace lasts. */
  secrets: string[];
}

/** 32 random bytes; the prefix tells inbound secrets apart from outbound ones (`whsec_`). */
const newSecret = () => `insec_${randomBytes(32).toString('base64url')}`;

const inboundPathOf = (channel: IntegrationChannel) =>
  channel === 'generic' ? '/v1/webhook/generic/{trigger_id}' : `/v1/webhook/${channel}`;

export function createIntegrationStore(db: Db, secretBox: SecretBox, { publicBaseUrl }: { publicBaseUrl: string }) {
  const integrations = db.collection<IntegrationDoc>('integrations');
  const inboundEvents = db.collection<InboundEventDoc>('inbound_events');
  const base = publicBaseUrl.replace(/\/+$/, '');

  const previousValidUntil = (d: IntegrationDoc, now: Date) =>
    d.previous_secret_sealed && d.previous_secret_valid_until && d.previous_secret_valid_until > now ? d.previous_secret_valid_until : null;

  const present = (d: IntegrationDoc): Integration => ({
    integration_id: d._id,
    channel: d.channel,
    name: d.name,
    webhook_url: `${base}${inboundPathOf(d.channel)}?integration_id=${d._id}`,
    secret_last4: d.secret_last4,
    previous_secret_valid_until: previousValidUntil(d, new Date())?.toISOString() ?? null,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  });

  async function getDoc(tenantId: string, id: string): Promise<IntegrationDoc> {
    const doc = await integrations.findOne({ _id: id, tenant_id: tenantId });
    if (!doc) throw notFound('integration', id);
    return doc;
  }

  return {
    /** Received inbound events older than `before` are forgotten (INBOUND_EVENT_RETENTION_DAYS). */
    async purgeInboundBefore(before: Date): Promise<number> {
      const { deletedCount } = await inboundEvents.deleteMany({ received_at: { $lt: before } });
      return deletedCount;
    },

    /** A tenant may have several integrations of a channel (two GitHub organisations, each its own secret). */
    async create(tenantId: string, body: CreateIntegrationBody): Promise<IntegrationWithSecret> {
      const secret = newSecret();
      const now = new Date();
      const doc: IntegrationDoc = {
        _id: newId('int'),
        tenant_id: tenantId,
        channel: body.channel,
        name: body.name ?? body.channel,
        secret_sealed: secretBox.seal(secret),
        secret_last4: secret.slice(-4),
        previous_secret_sealed: null,
        previous_secret_valid_until: null,
        created_at: now,
        updated_at: now,
      };
      await integrations.insertOne(doc);
      return { ...present(doc), secret };
    },

    list: (tenantId: string, query: NamedPageRequest) => findPage(integrations, tenantNamed(tenantId, query), query, present),

    get: async (tenantId: string, id: string) => present(await getDoc(tenantId, id)),

    /** Inbound calls naming it are refused from now on; the event ids it has seen go with it. */
    async delete(tenantId: string, id: string): Promise<void> {
      const { deletedCount } = await integrations.deleteOne({ _id: id, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('integration', id);
      await inboundEvents.deleteMany({ integration_id: id });
    },

    /**
     * A new secret verifies at once; the current one keeps verifying for `graceSeconds` (0: not at
     * all). A secret older than the current one stops at once. Two rotations at the same moment:
     * the one that no longer finds the secret it replaces is 10005.
     */
    async rotate(tenantId: string, id: string, graceSeconds: number): Promise<IntegrationWithSecret> {
      const doc = await getDoc(tenantId, id);
      const secret = newSecret();
      const now = new Date();
      const changes = {
        secret_sealed: secretBox.seal(secret),
        secret_last4: secret.slice(-4),
        previous_secret_sealed: graceSeconds > 0 ? doc.secret_sealed : null,
        previous_secret_valid_until: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
        updated_at: now,
      };
      const { matchedCount } = await integrations.updateOne(
        { _id: id, tenant_id: tenantId, secret_sealed: doc.secret_sealed },
        { $set: changes },
      );
      if (matchedCount === 0)
        throw conflict(`integration ${id} was rotated or deleted at the same time; try again`, { integration_id: id });
      return { ...present({ ...doc, ...changes }), secret };
    },

    /** The only place secrets are opened. Null when no such integration exists. */
    async verifierOf(integrationId: string): Promise<InboundVerifier | null> {
      const doc = await integrations.findOne({ _id: integrationId });
      if (!doc) return null;
      const secrets = [secretBox.open(doc.secret_sealed)];
      if (previousValidUntil(doc, new Date())) secrets.push(secretBox.open(doc.previous_secret_sealed!));
      return { integrationId: doc._id, tenantId: doc.tenant_id, channel: doc.channel, secrets };
    },

    /** Records the event id as seen; false when the integration had already seen it (a replay). */
    async recordInbound(
      integrationId: string,
      tenantId: string,
      event: InboundEvent,
      payloadText: string,
      triggerId: string | null,
    ): Promise<boolean> {
      const { payload: _payload, ...withoutPayload } = event;
      const payloadBytes = Buffer.byteLength(payloadText, 'utf8');
      try {
        await inboundEvents.insertOne({
          _id: `${integrationId}:${event.event_id}`,
          tenant_id: tenantId,
          integration_id: integrationId,
          trigger_id: triggerId,
          event: withoutPayload,
          payload_text: payloadBytes <= MAX_STORED_PAYLOAD_BYTES ? payloadText : null,
          payload_bytes: payloadBytes,
          received_at: new Date(event.received_at),
          tasks: null,
        });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    recordDispatched: async (integrationId: string, eventId: string, tasks: DispatchedTask[]): Promise<void> => {
      await inboundEvents.updateOne({ _id: `${integrationId}:${eventId}` }, { $set: { tasks } });
    },

    /** The dispatch failed: the sender's retry of the same event id must not count as a replay. */
    forgetInbound: async (integrationId: string, eventId: string): Promise<void> => {
      await inboundEvents.deleteOne({ _id: `${integrationId}:${eventId}` });
    },
  };
}

export type IntegrationStore = ReturnType<typeof createIntegrationStore>;
