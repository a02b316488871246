import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { CreateTriggerBody, EventTrigger, TriggerConfig, UpdateTriggerBody } from '../common/schemas/triggers';
import type { InboundEvent } from '../common/inbound-event';
import { unknownPathProblems } from '../common/event-templates';
import { findPage, type PageRequest } from './pagination';

interface TriggerDoc {
  _id: string;
  tenant_id: string;
  name: string;
  enabled: boolean;
  trigger: TriggerConfig;
  created_at: Date;
  updated_at: Date;
}

/** Where a generic trigger's events are POSTed. */
const genericInboundPath = (triggerId: string) => `/v1/webhook/generic/${triggerId}`;

/** Paths saved before templates were checked for them: shown, and filled as empty as they always were. */
const problemsOf = (config: TriggerConfig) =>
  Object.entries(config.action.inputs ?? {}).flatMap(([name, template]) =>
    unknownPathProblems(template).map((message) => ({ field: `trigger.action.inputs.${name}`, message })),
  );

const present = (d: TriggerDoc): EventTrigger => ({
  trigger_id: d._id,
  name: d.name,
  enabled: d.enabled,
  trigger: d.trigger,
  inbound_path: d.trigger.source === 'generic' ? genericInboundPath(d._id) : null,
  problems: problemsOf(d.trigger),
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
});

export function createTriggerStore(db: Db) {
  const triggers = db.collection<TriggerDoc>('event_triggers');

  async function getDoc(tenantId: string, id: string): Promise<TriggerDoc> {
    const doc = await triggers.findOne({ _id: id, tenant_id: tenantId });
    if (!doc) throw notFound('event trigger', id);
    return doc;
  }

  return {
    /** The ids of the tenant's triggers that start tasks on the agent. */
    async idsForAgent(tenantId: string, agentId: string): Promise<string[]> {
      const docs = await triggers.find({ tenant_id: tenantId, 'trigger.action.agent_id': agentId }, { projection: { _id: 1 } }).toArray();
      return docs.map((d) => d._id);
    },

    async deleteMany(tenantId: string, ids: string[]): Promise<void> {
      if (ids.length > 0) await triggers.deleteMany({ tenant_id: tenantId, _id: { $in: ids } });
    },

    async create(tenantId: string, body: CreateTriggerBody): Promise<EventTrigger> {
      const now = new Date();
      const doc: TriggerDoc = {
        _id: newId('trg'),
        tenant_id: tenantId,
        name: body.name,
        enabled: body.enabled,
        trigger: body.trigger,
        created_at: now,
        updated_at: now,
      };
      await triggers.insertOne(doc);
      return present(doc);
    },

    list: (tenantId: string, page: PageRequest) => findPage(triggers, { tenant_id: tenantId }, page, present),

    /** Every read is scoped by tenant: another tenant's trigger does not exist for the caller. */
    get: async (tenantId: string, id: string) => present(await getDoc(tenantId, id)),

    async update(tenantId: string, id: string, changes: UpdateTriggerBody): Promise<EventTrigger> {
      const doc = await triggers.findOneAndUpdate(
        { _id: id, tenant_id: tenantId },
        { $set: { ...changes, updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (!doc) throw notFound('event trigger', id);
      return present(doc);
    },

    async delete(tenantId: string, id: string): Promise<void> {
      const { deletedCount } = await triggers.deleteOne({ _id: id, tenant_id: tenantId });
      if (deletedCount === 0) throw notFound('event trigger', id);
    },

    /** The tenant's enabled triggers listening to a source (matching on event and project is the caller's). */
    async enabledForSource(tenantId: string, source: InboundEvent['source']): Promise<EventTrigger[]> {
      const docs = await triggers.find({ tenant_id: tenantId, enabled: true, 'trigger.source': source }).toArray();
      return docs.map(present);
    },
  };
}

export type TriggerStore = ReturnType<typeof createTriggerStore>;
