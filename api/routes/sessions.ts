import { agentParams } from '../../common/schemas/agents';
import { deletedResult, pageQuery } from '../../common/schemas/common';
import {
  createMessageBody,
  createSessionBody,
  message,
  messagePage,
  messageParams,
  session,
  sessionListQuery,
  sessionPage,
  sessionParams,
  tenantSessionListQuery,
} from '../../common/schemas/sessions';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Sessions';

export const sessionRoutes = ({ sessions, commands }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/combo/agents/{agent_id}/sessions',
    operationId: 'createSession',
    tag,
    summary: 'Create a session on the agent',
    description: 'Records the `session.created` event.',
    params: agentParams,
    body: createSessionBody,
    response: session,
    handler: ({ principal, params, body }) =>
      commands.sessions.create(principal.tenantId, params.agent_id, body.user_id ?? principal.userId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/combo/agents/{agent_id}/sessions',
    operationId: 'listSessions',
    tag,
    summary: "List the agent's sessions, newest first",
    description: 'Optionally only those of one user, of one status, or created in [since, until).',
    params: agentParams,
    query: sessionListQuery,
    response: sessionPage,
    handler: ({ principal, params, query }) => commands.sessions.listOfAgent(principal.tenantId, params.agent_id, query),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/combo/sessions',
    operationId: 'listTenantSessions',
    tag,
    summary: "List the tenant's sessions, newest first",
    description:
      "Every agent's sessions; optionally only one agent's (`agent_id`: one that does not exist lists none), one user's, " +
      'one status, or those created in [since, until).',
    query: tenantSessionListQuery,
    response: sessionPage,
    handler: ({ principal, query }) => sessions.list(principal.tenantId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/combo/sessions/{session_id}',
    operationId: 'getSession',
    tag,
    summary: 'Get one session',
    params: sessionParams,
    response: session,
    handler: ({ principal, params }) => sessions.get(principal.tenantId, params.session_id),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/combo/sessions/{session_id}',
    operationId: 'deleteSession',
    tag,
    summary: 'Delete a session, its messages and its skill activations',
    params: sessionParams,
    response: deletedResult,
    handler: async ({ principal, params }) => {
      await commands.sessions.remove(principal.tenantId, params.session_id);
      return { deleted: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/combo/sessions/{session_id}/archive',
    operationId: 'archiveSession',
    tag,
    summary: 'Archive a session',
    description:
      'Records `session.archived` once. An archived session refuses completions and messages with 10005; archiving again changes nothing.',
    params: sessionParams,
    response: session,
    handler: ({ principal, params }) => sessions.archive(principal.tenantId, params.session_id),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/combo/sessions/{session_id}/messages',
    operationId: 'addMessage',
    tag,
    summary: 'Add a message to the session',
    description: 'Recorded only: the agent is not advanced. 10005 when the session is archived.',
    params: sessionParams,
    body: createMessageBody,
    response: message,
    handler: ({ principal, params, body }) => sessions.addMessage(principal.tenantId, params.session_id, body),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/combo/sessions/{session_id}/messages/{message_id}',
    operationId: 'getMessage',
    tag,
    summary: 'Get one message (review reports link here)',
    params: messageParams,
    response: message,
    handler: ({ principal, params }) => sessions.getMessage(principal.tenantId, params.session_id, params.message_id),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/combo/sessions/{session_id}/messages',
    operationId: 'listMessages',
    tag,
    summary: "List the session's messages, oldest first",
    params: sessionParams,
    query: pageQuery,
    response: messagePage,
    handler: ({ principal, params, query }) => sessions.listMessages(principal.tenantId, params.session_id, query),
  }),
];
