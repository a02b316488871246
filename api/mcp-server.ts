import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError, ErrorCodes } from '../common/errors';
import { callerOf, type Principal } from './auth';
import type { AppContext } from './context';
import { findInputProblem, problemMessage } from './request-text';
import type { Services } from './services';

/** What the MCP server tells clients about itself in `initialize`. */
const SERVER_INFO = { name: 'combo-agent-service', version: '1.0.0' };

const INSTRUCTIONS =
  'Agents of one tenant of an agent orchestration service. list_agents names them; ask_agent runs one on a question ' +
  '(pass the session_id it answered to continue the conversation) and answers with its trace_id; get_run reads a run ' +
  'by that trace_id; search_knowledge searches knowledge bases; get_document tells whether a document is parsed.';

/** An id the tools take: any shape; one that names nothing of the tenant is error 10004. */
const idOf = (prefix: string, what: string) => z.string().min(1).max(128).describe(`${what} (\`${prefix}_…\`)`);

/** Everything one MCP request needs: who calls, and the HTTP request's own trace id, key and signal. */
interface McpRequestScope {
  principal: Principal;
  traceId: string;
  idempotencyKey: string | undefined;
  signal: AbortSignal;
}

/** A tool's answer: its data as structured content, and the same as JSON text for clients that read text only. */
const resultOf = (data: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(data) }],
  structuredContent: data,
});

/** A tool failure: the contract's code and message (and its client-safe details), never a stack trace. */
const failureOf = (error: AppError): CallToolResult => {
  const failure = { code: error.code, message: error.message, ...(error.details ? { data: error.details } : {}) };
  return {
    isError: true,
    content: [{ type: 'text', text: `error ${error.code}: ${error.message}` }],
    structuredContent: { error: failure },
  };
};

/**
 * The MCP server of one request, its tools bound to the caller's tenant. Stateless: a server and a
 * transport per HTTP request (the SDK's stateless pattern), so any API process answers any request.
 */
function mcpServerFor(services: Services, scope: McpRequestScope): McpServer {
  const { principal } = scope;
  const tenantId = principal.tenantId;
  const tools = services.commands.mcp;
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  /** Runs a tool: text the stores cannot hold is 10001; every failure becomes the tool's error result. */
  const run =
    <A extends Record<string, unknown>>(name: string, body: (args: A) => Promise<Record<string, unknown>>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        const problem = findInputProblem(args);
        if (problem) {
          const field = ['arguments', ...problem.path].join('.');
          throw new AppError(ErrorCodes.INVALID_PARAMETERS, `${field}: ${problemMessage(problem.reason)}`, { field });
        }
        return resultOf(await body(args));
      } catch (err) {
        if (err instanceof AppError) return failureOf(err);
        services.log.error('MCP tool failed', { tool: name, trace_id: scope.traceId, error: String((err as Error)?.stack ?? err) });
        return failureOf(new AppError(ErrorCodes.INTERNAL, 'internal error', { trace_id: scope.traceId }));
      }
    };

  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: 'The agents you can ask (newest first, at most 1,000): their agent_id, name and description.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('list_agents', async () => ({ agents: await tools.listAgents(tenantId) })),
  );

  server.registerTool(
    'ask_agent',
    {
      title: 'Ask an agent',
      description:
        'Runs an agent on a question, as a normal completion run (its instructions, tools, knowledge bases, skills and ' +
        'approvals), and answers when the run has ended: the answer text, the trace_id of the run (get_run reads it ' +
        'again), the session_id it ran on and its cost (tokens, duration, money where priced). Without session_id a new ' +
        'session is opened for the call; pass the session_id of an earlier answer to continue that conversation (the ' +
        'agent then sees its history). A run may take long (a tool call waiting for approval): the answer comes when it ends. ' +
        'Counts in the completions rate limit (60 a minute by default); over it the result is error 10006.',
      inputSchema: {
        agent_id: idOf('agt', 'the agent to ask (an agent_id of list_agents)'),
        question: z.string().trim().min(1).max(32_000).describe('the user message'),
        session_id: idOf('ses', 'a session of this agent to continue; omit for a new session').optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    run('ask_agent', async (args: { agent_id: string; question: string; session_id?: string }) => {
      // The HTTP request counted in the default family; a run of an agent counts as a completion too.
      const decision = await services.rateLimiter.take(principal.rateKey, 'completions');
      if (!decision.allowed)
        throw new AppError(
          ErrorCodes.RATE_LIMITED,
          `rate limit of ${decision.limit} completions per minute exceeded; retry after ${decision.retryAfter} s`,
          { retry_after: decision.retryAfter },
        );
      const answer = await tools.ask(callerOf(principal), {
        agentId: args.agent_id,
        question: args.question,
        sessionId: args.session_id,
        userId: principal.userId,
        idempotencyKey: scope.idempotencyKey,
        traceId: scope.traceId,
        signal: scope.signal,
      });
      return { ...answer };
    }),
  );

  server.registerTool(
    'search_knowledge',
    {
      title: 'Search knowledge bases',
      description:
        'Hybrid (vector + full-text) search over knowledge bases: the top_k chunks most similar to the query, each with its ' +
        'text, document and similarity. The knowledge bases must share an embedding model.',
      inputSchema: {
        kb_ids: z.array(idOf('kb', 'a knowledge base id')).min(1).max(32).describe('the knowledge bases to search'),
        query: z.string().trim().min(1).max(2000).describe('what to look for'),
        top_k: z.number().int().min(1).max(100).default(8).describe('chunks returned (1-100, default 8)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('search_knowledge', async (args: { kb_ids: string[]; query: string; top_k: number }) => ({
      ...(await tools.searchKnowledge(tenantId, { kb_ids: args.kb_ids, question: args.query, top_k: args.top_k })),
    })),
  );

  server.registerTool(
    'get_document',
    {
      title: 'Get a document',
      description:
        "A knowledge-base document: its status (parsing, ready, failed), parsing progress (stage, fraction, chunks), chunk count and the failure's reason.",
      inputSchema: { doc_id: idOf('doc', 'the document id') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('get_document', async (args: { doc_id: string }) => ({ ...(await tools.getDocument(tenantId, args.doc_id)) })),
  );

  server.registerTool(
    'get_run',
    {
      title: 'Get a run',
      description:
        "A completion run by its trace_id (ask_agent's answer has it): its status (queued, running, waiting_approval, " +
        'completed, failed, canceled), its question, and once ended its answer, cost, stop reason or error.',
      inputSchema: { trace_id: idOf('trc', 'the run’s trace id') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    run('get_run', async (args: { trace_id: string }) => ({ ...(await tools.getRun(tenantId, args.trace_id)) })),
  );
  return server;
}

/** The request as a Web Request (the SDK transport's input), its body the bytes the route layer read within its limit. */
function webRequestOf(ctx: AppContext): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`${ctx.protocol}://${ctx.host}${ctx.originalUrl}`, {
    method: ctx.method,
    headers,
    body: ctx.state.rawBody && ctx.state.rawBody.length > 0 ? new Uint8Array(ctx.state.rawBody) : undefined,
    signal: ctx.state.signal,
  });
}

/** The JSON-RPC error message of a transport-level refusal (not JSON, not JSON-RPC, a missing Accept type). */
function refusalMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: the text itself.
  }
  return text || 'the request is not a JSON-RPC message this server takes';
}

/**
 * Answers one POST /v1/mcp: the JSON-RPC message(s) it carries, through the SDK's Streamable HTTP
 * transport in stateless JSON mode (the response is application/json; 202 without a body for
 * notifications). A refusal of the transport itself (malformed JSON-RPC, a missing Accept type) is
 * the contract's 10001 with the transport's status and message.
 */
export async function answerMcpRequest(ctx: AppContext, services: Services, scope: McpRequestScope): Promise<void> {
  const server = mcpServerFor(services, scope);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(webRequestOf(ctx));
    const text = await response.text();
    if (response.status >= 400) throw new AppError(ErrorCodes.INVALID_PARAMETERS, refusalMessage(text), undefined, response.status);
    ctx.status = response.status;
    const type = response.headers.get('content-type');
    if (type) ctx.type = type;
    ctx.body = text;
  } finally {
    await server.close();
  }
}
