import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { Agent, CreateAgentBody, UpdateAgentBody } from '../common/schemas/agents';
import { findPage, type NamedPageRequest, tenantNamed, type Page } from './pagination';
import { createReadCache } from './read-cache';

interface AgentDoc extends Omit<Agent, 'agent_id' | 'created_at' | 'updated_at' | 'multitask_strategy' | 'approval'> {
  multitask_strategy?: Agent['multitask_strategy'];
  approval?: Agent['approval'];
  _id: string;
  tenant_id: string;
  created_at: Date;
  updated_at: Date;
}

const present = ({ _id, tenant_id: _tenant, created_at, updated_at, ...rest }: AgentDoc): Agent => ({
  agent_id: _id,
  ...rest,
  // Agents saved before the setting existed reject, as every completion did then.
  multitask_strategy: rest.multitask_strategy ?? 'reject',
  // Approval settings saved before separate_duties existed let anyone decide.
  approval: rest.approval ? { ...rest.approval, separate_duties: rest.approval.separate_duties ?? false } : null,
  created_at: created_at.toISOString(),
  updated_at: updated_at.toISOString(),
});

export function createAgentStore(db: Db, { listCacheTtlMs = 0 }: { listCacheTtlMs?: number } = {}) {
  const agents = db.collection<AgentDoc>('agents');
  const listCache = createReadCache<Page<Agent>>(listCacheTtlMs);
  // Every completion reads its agent: served from memory for up to the same TTL as lists.
  const agentCache = createReadCache<Agent>(listCacheTtlMs);
  const invalidate = (tenantId: string) => {
    listCache.invalidateTenant(tenantId);
    agentCache.invalidateTenant(tenantId);
  };

  return {
    async create(tenantId: string, body: CreateAgentBody): Promise<Agent> {
      const now = new Date();
      const doc: AgentDoc = { _id: newId('agt'), tenant_id: tenantId, ...body, created_at: now, updated_at: now };
      await agents.insertOne(doc);
      invalidate(tenantId);
      return present(doc);
    },

    list: (tenantId: string, query: NamedPageRequest) =>
      // The name is JSON-quoted in the key, so that no name can pass for another page's key.
      listCache.get(`${tenantId}|${query.page}|${query.page_size}|${JSON.stringify(query.name ?? null)}`, () =>
        findPage(agents, tenantNamed(tenantId, query), query, present),
      ),

    /** Every read is scoped by tenant: another tenant's agent does not exist for the caller. */
    get: (tenantId: string, agentId: string): Promise<Agent> =>
      agentCache.get(`${tenantId}|${agentId}`, async () => {
        const doc = await agents.findOne({ _id: agentId, tenant_id: tenantId });
        if (!doc) throw notFound('agent', agentId);
        return present(doc);
      }),

    async update(tenantId: string, agentId: string, changes: UpdateAgentBody): Promise<Agent> {
      const doc = await agents.findOneAndUpdate(
        { _id: agentId, tenant_id: tenantId },
        { $set: { ...changes, updated_at: new Date() } },
        { returnDocument: 'after' },
      );
      if (!doc) throw notFound('agent', agentId);
      invalidate(tenantId);
      return present(doc);
    },

    /**
     * The tenant's agents whose model names the provider (with `onlyModelsOutside`: only those that
     * name a model outside that list): how many, and the first `limit` ids in id order.
     */
    async usingProvider(
      tenantId: string,
      providerId: string,
      { limit, onlyModelsOutside }: { limit: number; onlyModelsOutside?: string[] },
    ): Promise<{ total: number; agentIds: string[] }> {
      const filter = {
        tenant_id: tenantId,
        'model.provider_id': providerId,
        ...(onlyModelsOutside ? { 'model.model': { $exists: true, $nin: onlyModelsOutside } } : {}),
      };
      const [total, docs] = await Promise.all([
        agents.countDocuments(filter),
        agents
          .find(filter, { projection: { _id: 1 } })
          .sort({ _id: 1 })
          .limit(limit)
          .toArray(),
      ]);
      return { total, agentIds: docs.map((d) => d._id) };
    },

    /** Removes the agent first (no new sessions can start), then the caller cascades. */
    async delete(tenantId: string, agentId: string): Promise<void> {
      const { deletedCount } = await agents.deleteOne({ _id: agentId, tenant_id: tenantId });
      invalidate(tenantId);
      if (deletedCount === 0) throw notFound('agent', agentId);
    },
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;
