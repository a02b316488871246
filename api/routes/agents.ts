import { agent, agentPage, agentParams, createAgentBody, type UpdateAgentBody, updateAgentBody } from '../../common/schemas/agents';
import { parseRoute } from '../../completion/route-catalog';
import { deleteAgentQuery } from '../../common/schemas/agent-delete';
import { deletedResult, namedPageQuery } from '../../common/schemas/common';
import { invalid } from '../../common/errors';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Agents';

const REFERENCES =
  'kb_ids and skills must exist in the tenant (10004); default_route must name a supported scenario, processor and mode (10001); approval.tools must name built-in tools or tools of installed skills, and approval.timeout_s must be at most half of the run time bound, COMPLETION_RUN_TIMEOUT_MS (10001).';

export const agentRoutes = (services: Services) => {
  const { agents, knowledgeBases, skills, commands, config } = services;
  // A call waits at most half of what remains of its run (workflows/completion.ts): a longer timeout would never be reached.
  const approvalTimeoutMaxS = Math.floor(config.COMPLETION_RUN_TIMEOUT_MS / 2000);
  /** What an agent refers to must exist: a run would otherwise fail later, far from the mistake. */
  async function checkReferences(tenantId: string, body: UpdateAgentBody): Promise<void> {
    if (body.default_route) parseRoute(body.default_route, 'body.default_route');
    if (body.approval && body.approval.timeout_s > approvalTimeoutMaxS)
      throw invalid(
        `body.approval.timeout_s: at most ${approvalTimeoutMaxS} (half of the run time bound, COMPLETION_RUN_TIMEOUT_MS ${config.COMPLETION_RUN_TIMEOUT_MS} ms)`,
        { field: 'body.approval.timeout_s' },
      );
    await Promise.all([
      body.kb_ids ? knowledgeBases.getMany(tenantId, body.kb_ids) : undefined,
      ...(body.skills ?? []).map((id) => skills.get(tenantId, id)),
      ...(body.approval?.tools ?? []).map((name, i) => approvedToolExists(tenantId, name, `body.approval.tools.${i}`)),
    ]);
  }

  /** A misspelt skill tool would leave the real one unguarded: it must name a tool of an installed skill. */
  async function approvedToolExists(tenantId: string, name: string, field: string): Promise<void> {
    const at = name.indexOf('__');
    if (at < 0) return;
    const [skill, tool] = [name.slice(0, at), name.slice(at + 2)];
    if (!(await skills.offersTool(tenantId, skill, tool)))
      throw invalid(`${field}: no installed skill ${skill} has a tool ${tool}`, { field });
  }

  return [
    defineRoute({
      method: 'post',
      path: '/v1/combo/agents',
      operationId: 'createAgent',
      tag,
      summary: 'Create an agent',
      description: REFERENCES,
      body: createAgentBody,
      response: agent,
      handler: async ({ principal, body }) => {
        await checkReferences(principal.tenantId, body);
        return agents.create(principal.tenantId, body);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/combo/agents',
      operationId: 'listAgents',
      tag,
      summary: 'List agents, newest first',
      query: namedPageQuery,
      response: agentPage,
      handler: ({ principal, query }) => agents.list(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/combo/agents/{agent_id}',
      operationId: 'getAgent',
      tag,
      summary: 'Get one agent',
      params: agentParams,
      response: agent,
      handler: ({ principal, params }) => agents.get(principal.tenantId, params.agent_id),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/combo/agents/{agent_id}',
      operationId: 'updateAgent',
      tag,
      summary: 'Update an agent',
      description: `Fields present in the body replace the stored ones; absent fields are kept. ${REFERENCES}`,
      params: agentParams,
      body: updateAgentBody,
      response: agent,
      handler: async ({ principal, params, body }) => {
        await checkReferences(principal.tenantId, body);
        return agents.update(principal.tenantId, params.agent_id, body);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/combo/agents/{agent_id}',
      operationId: 'deleteAgent',
      tag,
      summary: 'Delete an agent',
      description:
        'Also deletes its sessions and their messages. While cron jobs or event triggers run the agent, the delete is refused with ' +
        "10005 and `data.cron_ids` / `data.trigger_ids`; with `cascade=true` they are deleted too (a cron job's Temporal Schedule " +
        'included; runs already going finish). A job or trigger saved while the delete runs is deleted with it.',
      params: agentParams,
      query: deleteAgentQuery,
      response: deletedResult,
      handler: async ({ principal, params, query }) => {
        await commands.agents.remove(principal.tenantId, params.agent_id, { cascade: query.cascade === 'true' });
        return { deleted: true as const };
      },
    }),
  ];
};
