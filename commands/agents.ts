import type { Client } from '@temporalio/client';
import type { Config } from '../common/config';
import { conflict, invalid } from '../common/errors';
import type { AgentDependents } from '../common/schemas/agent-delete';
import { mcpUrlAllowsPrivate } from '../common/net/private-hosts';
import { assertPublicHttpUrl, UnsafeUrlError } from '../common/net/url-guard';
import type { Agent, CreateAgentBody, UpdateAgentBody } from '../common/schemas/agents';
import { type McpServerInput, splitMcpToolName } from '../common/schemas/mcp-servers';
import { parseRoute } from '../completion/route-catalog';
import type { AgentStore } from '../stores/agents';
import type { CronJobStore } from '../stores/cron-jobs';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';
import type { ModelProviderStore } from '../stores/model-providers';
import type { SessionStore } from '../stores/sessions';
import type { SkillStore } from '../stores/skills';
import type { TriggerStore } from '../stores/triggers';
import { deleteCronSchedule } from './cron';

const none = (d: AgentDependents) => d.cron_ids.length === 0 && d.trigger_ids.length === 0;

export interface AgentCommandDeps {
  agents: AgentStore;
  sessions: SessionStore;
  cronJobs: CronJobStore;
  triggers: TriggerStore;
  knowledgeBases: KnowledgeBaseStore;
  skills: SkillStore;
  modelProviders: Pick<ModelProviderStore, 'get'>;
  temporal: Client;
  config: Config;
}

/**
 * Agents: what one refers to must exist when it is saved; deleting one must not leave cron jobs or
 * triggers that would start tasks on nothing: they refuse the delete (10005 naming them) unless the
 * caller asks for them to go too.
 */
export function createAgentCommands({
  agents,
  sessions,
  cronJobs,
  triggers,
  knowledgeBases,
  skills,
  modelProviders,
  temporal,
  config,
}: AgentCommandDeps) {
  // A call waits at most half of what remains of its run (workflows/completion.ts): a longer timeout would never be reached.
  const approvalTimeoutMaxS = Math.floor(config.COMPLETION_RUN_TIMEOUT_MS / 2000);

  /**
   * What an agent refers to must exist: a run would otherwise fail later, far from the mistake.
   * `stored`: the agent before an update (its skills and MCP servers when the body leaves them out).
   */
  async function checkReferences(tenantId: string, body: UpdateAgentBody, stored?: Agent): Promise<void> {
    if (body.default_route) parseRoute(body.default_route, 'body.default_route');
    if (body.approval && body.approval.timeout_s > approvalTimeoutMaxS)
      throw invalid(
        `body.approval.timeout_s: at most ${approvalTimeoutMaxS} (half of the run time bound, COMPLETION_RUN_TIMEOUT_MS ${config.COMPLETION_RUN_TIMEOUT_MS} ms)`,
        { field: 'body.approval.timeout_s' },
      );
    const servers: Array<Pick<McpServerInput, 'name' | 'allowed_tools'>> = body.mcp_servers ?? stored?.mcp_servers ?? [];
    const [, agentSkills] = await Promise.all([
      body.kb_ids ? knowledgeBases.getMany(tenantId, body.kb_ids) : undefined,
      // The body's skills must exist; the stored ones are read only for their names (one removed since is skipped).
      body.skills
        ? Promise.all(body.skills.map((id) => skills.get(tenantId, id)))
        : body.mcp_servers && stored
          ? skills.byIds(tenantId, stored.skills)
          : [],
      ...(body.approval?.tools ?? []).map((name, i) => approvedToolExists(tenantId, name, servers, `body.approval.tools.${i}`)),
      body.model ? providerOffers(tenantId, body.model) : undefined,
      ...(body.mcp_servers ?? []).map((server, i) => mcpUrlIsAllowed(server.url, `body.mcp_servers.${i}.url`)),
    ]);
    // A server named as one of the agent's skills would give its tools the skill tools' names (common/schemas/mcp-servers.ts).
    if (body.mcp_servers || body.skills) {
      const skillNames = new Set(agentSkills.map((s) => s.name));
      servers.forEach((server, i) => {
        if (skillNames.has(server.name))
          throw invalid(`body.mcp_servers.${i}.name: ${server.name} is the name of one of the agent's skills; name the server otherwise`, {
            field: `body.mcp_servers.${i}.name`,
          });
      });
    }
  }

  /** An MCP server's URL passes the private-address guard (ALLOW_PRIVATE_URLS, MCP_PRIVATE_HOSTS); checked again on every call. */
  async function mcpUrlIsAllowed(url: string, field: string): Promise<void> {
    try {
      await assertPublicHttpUrl(url, mcpUrlAllowsPrivate(url, config));
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw invalid(`${field}: ${err.message}`, { field });
      throw err;
    }
  }

  /** A provider the agent names must exist (10004), and offer the model it names (10001). */
  async function providerOffers(
    tenantId: string,
    { provider_id: providerId, model }: NonNullable<UpdateAgentBody['model']>,
  ): Promise<void> {
    if (providerId === undefined) return;
    const provider = await modelProviders.get(tenantId, providerId);
    if (model !== undefined && !provider.models.some((m) => m.id === model))
      throw invalid(
        `body.model.model: provider ${providerId} does not offer ${model} (it offers ${provider.models
          .slice(0, 10)
          .map((m) => m.id)
          .join(', ')}${provider.models.length > 10 ? ', ...' : ''})`,
        { field: 'body.model.model' },
      );
  }

  /**
   * A misspelt tool would leave the real one unguarded: it must name an allowed tool of one of the
   * agent's MCP servers or a tool of an installed skill.
   */
  async function approvedToolExists(
    tenantId: string,
    name: string,
    servers: Array<Pick<McpServerInput, 'name' | 'allowed_tools'>>,
    field: string,
  ): Promise<void> {
    const at = name.indexOf('__');
    if (at < 0) return;
    const mcp = splitMcpToolName(name);
    if (mcp && servers.some((s) => s.name === mcp.server && s.allowed_tools.includes(mcp.tool))) return;
    const [skill, tool] = [name.slice(0, at), name.slice(at + 2)];
    if (!(await skills.offersTool(tenantId, skill, tool)))
      throw invalid(`${field}: no installed skill ${skill} and none of the agent's MCP servers has a tool ${tool}`, { field });
  }

  async function dependents(tenantId: string, agentId: string): Promise<AgentDependents> {
    const [cronIds, triggerIds] = await Promise.all([cronJobs.idsForAgent(tenantId, agentId), triggers.idsForAgent(tenantId, agentId)]);
    return { cron_ids: cronIds, trigger_ids: triggerIds };
  }

  /** Schedule before record, as the cron API does: a failure part-way leaves a job that can be deleted again, never a schedule without its record. */
  async function removeDependents(tenantId: string, found: AgentDependents): Promise<void> {
    for (const cronId of found.cron_ids) {
      await deleteCronSchedule(temporal, cronId);
      await cronJobs.delete(tenantId, cronId);
    }
    await triggers.deleteMany(tenantId, found.trigger_ids);
  }

  return {
    async create(tenantId: string, body: CreateAgentBody): Promise<Agent> {
      await checkReferences(tenantId, body);
      return agents.create(tenantId, body);
    },

    /** Fields present replace the stored ones. */
    async update(tenantId: string, agentId: string, body: UpdateAgentBody): Promise<Agent> {
      // The stored agent's skills and MCP servers count when the body changes only the other side of a check.
      const stored = body.approval || body.mcp_servers || body.skills ? await agents.get(tenantId, agentId) : undefined;
      await checkReferences(tenantId, body, stored);
      return agents.update(tenantId, agentId, body);
    },

    async remove(tenantId: string, agentId: string, { cascade }: { cascade: boolean }): Promise<void> {
      await agents.get(tenantId, agentId);
      const found = await dependents(tenantId, agentId);
      if (!cascade && !none(found)) {
        throw conflict(
          `agent ${agentId} is used by ${found.cron_ids.length} cron job(s) and ${found.trigger_ids.length} event trigger(s); delete them first or pass cascade=true`,
          { ...found },
        );
      }
      await removeDependents(tenantId, found);
      await agents.delete(tenantId, agentId);
      // A job or trigger saved while this ran passed its agent check before the agent went: it
      // could never run, so it goes too (whatever `cascade` said).
      await removeDependents(tenantId, await dependents(tenantId, agentId));
      await sessions.deleteForAgent(tenantId, agentId);
    },
  };
}
