import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { Agent, CreateAgentBody, UpdateAgentBody } from '../common/schemas/agents';
import { MCP_TOOL_TIMEOUT_DEFAULT_MS, type McpServer, type McpServerInput } from '../common/schemas/mcp-servers';
import { findPage, type NamedPageRequest, tenantNamed, type Page } from './pagination';
import { createReadCache } from './read-cache';
import type { SecretBox } from './secret-box';

/** An MCP server as stored: its headers' JSON object sealed whole (their values are credentials). */
interface StoredMcpServer extends McpServer {
  headers_sealed: string | null;
}

/** What an MCP tool activity needs of a server, headers opened (stores/agents.ts is the only place they are). */
export interface McpServerConnection {
  name: string;
  url: string;
  headers: Record<string, string>;
  allowedTools: string[];
  timeoutMs: number;
}

interface AgentDoc extends Omit<Agent, 'agent_id' | 'created_at' | 'updated_at' | 'multitask_strategy' | 'approval' | 'mcp_servers'> {
  multitask_strategy?: Agent['multitask_strategy'];
  approval?: Agent['approval'];
  /** Absent on agents saved before MCP servers existed. */
  mcp_servers?: StoredMcpServer[];
  _id: string;
  tenant_id: string;
  created_at: Date;
  updated_at: Date;
}

const presentMcpServer = ({ headers_sealed: _sealed, ...shown }: StoredMcpServer): McpServer => shown;

const present = ({ _id, tenant_id: _tenant, created_at, updated_at, mcp_servers, ...rest }: AgentDoc): Agent => ({
  agent_id: _id,
  ...rest,
  mcp_servers: (mcp_servers ?? []).map(presentMcpServer),
  // Agents saved before the setting existed reject, as every completion did then.
  multitask_strategy: rest.multitask_strategy ?? 'reject',
  // Approval settings saved before separate_duties existed let anyone decide.
  approval: rest.approval ? { ...rest.approval, separate_duties: rest.approval.separate_duties ?? false } : null,
  created_at: created_at.toISOString(),
  updated_at: updated_at.toISOString(),
});

export function createAgentStore(db: Db, secretBox: SecretBox, { listCacheTtlMs = 0 }: { listCacheTtlMs?: number } = {}) {
  const agents = db.collection<AgentDoc>('agents');
  /** Servers as stored; one whose `headers` are absent keeps those stored for its name in `before`. */
  const sealServers = (servers: McpServerInput[], before: StoredMcpServer[] = []): StoredMcpServer[] =>
    servers.map(({ headers, timeout_ms, ...server }) => {
      const kept = headers === undefined ? before.find((b) => b.name === server.name) : undefined;
      return {
        ...server,
        timeout_ms: timeout_ms ?? MCP_TOOL_TIMEOUT_DEFAULT_MS,
        header_names: kept ? kept.header_names : Object.keys(headers ?? {}),
        headers_sealed: kept
          ? kept.headers_sealed
          : headers && Object.keys(headers).length > 0
            ? secretBox.seal(JSON.stringify(headers))
            : null,
      };
    });
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
      const doc: AgentDoc = {
        _id: newId('agt'),
        tenant_id: tenantId,
        ...body,
        mcp_servers: sealServers(body.mcp_servers),
        created_at: now,
        updated_at: now,
      };
      await agents.insertOne(doc);
      invalidate(tenantId);
      return present(doc);
    },

    list: (tenantId: string, query: NamedPageRequest) =>
      // The name is JSON-quoted in the key, so that no name can pass for another page's key.
      listCache.get(`${tenantId}|${query.page}|${query.page_size}|${JSON.stringify(query.name ?? null)}`, () =>
        findPage(agents, tenantNamed(tenantId, query), query, present),
      ),

    /** The tenant's newest agents, at most `limit`, in one read (for surfaces whose lists have no pages: OpenAI's models, MCP). */
    async newest(tenantId: string, limit: number): Promise<Agent[]> {
      const docs = await agents.find({ tenant_id: tenantId }).sort({ created_at: -1, _id: -1 }).limit(limit).toArray();
      return docs.map(present);
    },

    /** Every read is scoped by tenant: another tenant's agent does not exist for the caller. */
    get: (tenantId: string, agentId: string): Promise<Agent> =>
      agentCache.get(`${tenantId}|${agentId}`, async () => {
        const doc = await agents.findOne({ _id: agentId, tenant_id: tenantId });
        if (!doc) throw notFound('agent', agentId);
        return present(doc);
      }),

    async update(tenantId: string, agentId: string, changes: UpdateAgentBody): Promise<Agent> {
      const { mcp_servers: servers, ...rest } = changes;
      const set: Partial<AgentDoc> = { ...rest, updated_at: new Date() };
      if (servers !== undefined) {
        const before = await agents.findOne({ _id: agentId, tenant_id: tenantId }, { projection: { mcp_servers: 1 } });
        if (!before) throw notFound('agent', agentId);
        set.mcp_servers = sealServers(servers, before.mcp_servers);
      }
      const doc = await agents.findOneAndUpdate({ _id: agentId, tenant_id: tenantId }, { $set: set }, { returnDocument: 'after' });
      if (!doc) throw notFound('agent', agentId);
      invalidate(tenantId);
      return present(doc);
    },

    /**
     * One of the agent's MCP servers with its headers opened, read from the database (not the cache):
     * what a tool activity connects with. Null when the agent or the server is gone.
     */
    async mcpServerConnection(tenantId: string, agentId: string, serverName: string): Promise<McpServerConnection | null> {
      const doc = await agents.findOne({ _id: agentId, tenant_id: tenantId }, { projection: { mcp_servers: 1 } });
      const server = doc?.mcp_servers?.find((s) => s.name === serverName);
      if (!server) return null;
      return {
        name: server.name,
        url: server.url,
        headers: server.headers_sealed ? (JSON.parse(secretBox.open(server.headers_sealed)) as Record<string, string>) : {},
        allowedTools: server.allowed_tools,
        timeoutMs: server.timeout_ms,
      };
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
