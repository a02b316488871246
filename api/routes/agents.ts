import { agent, agentPage, agentParams, createAgentBody, updateAgentBody } from '../../common/schemas/agents';
import { deleteAgentQuery } from '../../common/schemas/agent-delete';
import { deletedResult, namedPageQuery } from '../../common/schemas/common';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Agents';

const REFERENCES =
  "kb_ids and skills must exist in the tenant (10004); default_route must name a supported scenario, processor and mode (10001); approval.tools must name built-in tools, tools of installed skills or allowed tools of the agent's MCP servers, and approval.timeout_s must be at most half of the run time bound, COMPLETION_RUN_TIMEOUT_MS (10001); an MCP server's URL must pass the private-address guard and its name must not be one of the agent's skills' names (10001).";

export const agentRoutes = (services: Services) => {
  const { agents, commands } = services;

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
      handler: ({ principal, body }) => commands.agents.create(principal.tenantId, body),
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
      handler: ({ principal, params, body }) => commands.agents.update(principal.tenantId, params.agent_id, body),
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
