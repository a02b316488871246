import { agent, agentPage, agentParams, createAgentBody, updateAgentBody } from '../../common/schemas/agents';
import { deletedResult, pageQuery } from '../../common/schemas/common';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Agents';

export const agentRoutes = ({ agents, sessions }: Services) => [
  defineRoute({
    method: 'post', path: '/v1/combo/agents', operationId: 'createAgent', tag, summary: 'Create an agent',
    body: createAgentBody, response: agent,
    handler: ({ principal, body }) => agents.create(principal.tenantId, body),
  }),
  defineRoute({
    method: 'get', path: '/v1/combo/agents', operationId: 'listAgents', tag, summary: 'List agents, newest first',
    query: pageQuery, response: agentPage,
    handler: ({ principal, query }) => agents.list(principal.tenantId, query),
  }),
  defineRoute({
    method: 'get', path: '/v1/combo/agents/{agent_id}', operationId: 'getAgent', tag, summary: 'Get one agent',
    params: agentParams, response: agent,
    handler: ({ principal, params }) => agents.get(principal.tenantId, params.agent_id),
  }),
  defineRoute({
    method: 'put', path: '/v1/combo/agents/{agent_id}', operationId: 'updateAgent', tag,
    summary: 'Update an agent', description: 'Fields present in the body replace the stored ones; absent fields are kept.',
    params: agentParams, body: updateAgentBody, response: agent,
    handler: ({ principal, params, body }) => agents.update(principal.tenantId, params.agent_id, body),
  }),
  defineRoute({
    method: 'delete', path: '/v1/combo/agents/{agent_id}', operationId: 'deleteAgent', tag,
    summary: 'Delete an agent', description: 'Also deletes its sessions and their messages.',
    params: agentParams, response: deletedResult,
    handler: async ({ principal, params }) => {
      await agents.delete(principal.tenantId, params.agent_id);
      await sessions.deleteForAgent(principal.tenantId, params.agent_id);
      return { deleted: true as const };
    },
  }),
];
