import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, AppError, notFound } from '../../common/errors';
import { errorEnvelope } from '../../common/schemas/envelope';
import { mcpRequestBody, mcpResponseBody, protectedResourceMetadata } from '../../common/schemas/mcp';
import type { AppContext } from '../context';
import { answerMcpRequest } from '../mcp-server';
import { MCP_PATH, MCP_PROTECTED_RESOURCE_PATH, PROTECTED_RESOURCE_PATH, protectedResourceOf } from '../mcp-oauth';
import { defineRoute, STREAMED } from '../route';
import type { Services } from '../services';

const tag = 'MCP';
const bare = { error: errorEnvelope };

const MCP_DESCRIPTION = `
The service as a Model Context Protocol server (Streamable HTTP transport, stateless), for MCP hosts and the official MCP SDKs: see docs/mcp.md. Specification revisions, as the official TypeScript SDK negotiates them: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (latest: ${LATEST_PROTOCOL_VERSION}).

Tools, each scoped to the caller's tenant: \`list_agents\`, \`ask_agent\` (runs an agent as a normal completion run, on a session it names or a new one; answers the answer, trace_id, session_id and cost), \`search_knowledge\`, \`get_document\`, \`get_run\`. A tool's failure is a result with \`isError: true\` and the contract's code and message.

The body is one JSON-RPC message (\`Content-Type: application/json\`, at most MAX_JSON_BODY_BYTES); \`Accept\` must list \`application/json\` and \`text/event-stream\`. Requests are answered with \`application/json\`; notifications and responses with 202 and no body. Stateless: no \`Mcp-Session-Id\`, any API process answers any request; GET (a server-to-client stream) and DELETE (ending a session) are 405.

Authentication: the bearer API key or JWT, as everywhere. Errors before the JSON-RPC exchange (401, 403, 429, a body over the limit, a wrong Content-Type; the transport's own refusals, such as a body that is not JSON-RPC or an \`Accept\` without both types, with its status) have the contract's error envelope. With an identity provider configured (JWT_ISSUER), a 401 carries \`WWW-Authenticate: Bearer resource_metadata="…"\`. The request counts in the default rate family; each \`ask_agent\` call also takes one from the completions family (60 a minute). An \`Idempotency-Key\` makes a retried \`ask_agent\` attach to the run the first try started.`;

/** Stateless: no stream from the server and no session to end, so GET and DELETE are 405, as the transport specification says. */
const methodNotAllowed = (method: string) => (ctx: AppContext) => {
  ctx.set('Allow', 'POST');
  throw new AppError(
    ErrorCodes.NOT_FOUND,
    `${method} is not supported on ${MCP_PATH}: this MCP server is stateless (no server-sent stream, no session to end); POST JSON-RPC messages`,
    undefined,
    405,
  );
};

export const mcpRoutes = (services: Services) => {
  const metadata = protectedResourceOf(services.config);
  const wellKnown = (path: string, operationId: string) =>
    defineRoute({
      method: 'get',
      path,
      operationId,
      tag,
      access: 'none',
      summary: 'OAuth protected-resource metadata of the MCP server (RFC 9728)',
      description:
        'Where an identity provider is configured (JWT_ISSUER with JWT_PUBLIC_KEY or JWT_SECRET): the resource (PUBLIC_BASE_URL/v1/mcp) and its ' +
        'authorization server, for MCP hosts that sign in through OAuth. 404 (10004) when none is configured: the MCP server then takes API keys and console tokens.',
      response: protectedResourceMetadata,
      bare,
      handler: () => {
        if (!metadata) throw notFound('protected-resource metadata', path);
        return metadata;
      },
    });
  return [
    defineRoute({
      method: 'post',
      path: MCP_PATH,
      operationId: 'mcp',
      tag,
      summary: 'MCP server (Streamable HTTP): JSON-RPC messages',
      description: MCP_DESCRIPTION,
      rawBody: { documented: mcpRequestBody },
      response: mcpResponseBody,
      bare,
      otherErrors: { 406: '`Accept` lists not both application/json and text/event-stream (10001)' },
      // Not kept for repeats: the key goes to ask_agent, whose retried call attaches to its first run.
      idempotency: 'handler',
      handler: async ({ ctx, principal, idempotencyKey }): Promise<typeof STREAMED> => {
        await answerMcpRequest(ctx, services, { principal, traceId: ctx.state.traceId, idempotencyKey, signal: ctx.state.signal });
        return STREAMED;
      },
    }),
    defineRoute({
      method: 'get',
      path: MCP_PATH,
      operationId: 'mcpOpenStream',
      tag,
      summary: 'MCP server: no server-sent stream (405)',
      description: 'The MCP server is stateless: it opens no stream of its own; always 405 with `Allow: POST` (after authentication).',
      response: 'raw',
      otherErrors: { 405: 'always: the MCP server opens no stream (10004)' },
      handler: ({ ctx }) => methodNotAllowed('GET')(ctx),
    }),
    defineRoute({
      method: 'delete',
      path: MCP_PATH,
      operationId: 'mcpEndSession',
      tag,
      summary: 'MCP server: no session to end (405)',
      description: 'The MCP server is stateless: it keeps no session; always 405 with `Allow: POST` (after authentication).',
      response: 'raw',
      otherErrors: { 405: 'always: the MCP server keeps no session (10004)' },
      handler: ({ ctx }) => methodNotAllowed('DELETE')(ctx),
    }),
    wellKnown(MCP_PROTECTED_RESOURCE_PATH, 'mcpProtectedResource'),
    wellKnown(PROTECTED_RESOURCE_PATH, 'protectedResource'),
  ];
};
