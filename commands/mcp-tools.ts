import { AppError, ErrorCodes, invalid } from '../common/errors';
import type { Agent } from '../common/schemas/agents';
import type { CompletionReply, CompletionRun } from '../common/schemas/completions';
import { type KnowledgeDocument, type SearchBody, type SearchResult, searchBody } from '../common/schemas/knowledge';
import type { AgentStore } from '../stores/agents';
import type { DocumentStore } from '../stores/documents';
import type { SessionStore } from '../stores/sessions';
import type { Caller, createCompletionCommands } from './completions';
import type { createSearchCommands } from './search';

/** The most agents `list_agents` answers (an MCP tool result has no pages). */
const MCP_AGENTS_MAX = 1_000;
/** A session opened for one `ask_agent` call is named after the start of its question. */
const SESSION_NAME_CHARS = 80;

export interface McpToolDeps {
  agents: Pick<AgentStore, 'get' | 'newest'>;
  sessions: Pick<SessionStore, 'create'>;
  documents: Pick<DocumentStore, 'get'>;
  completions: Pick<ReturnType<typeof createCompletionCommands>, 'ask' | 'sessionOfKey' | 'replyWhenEnded' | 'get'>;
  search: ReturnType<typeof createSearchCommands>;
}

/** One agent as `list_agents` shows it. */
export type McpAgent = Pick<Agent, 'agent_id' | 'name' | 'description'>;

/** One `ask_agent` call, as the MCP server read it. */
export interface McpAskRequest {
  agentId: string;
  question: string;
  /** A session of this agent the question continues; absent: a new session for this call. */
  sessionId?: string;
  /** The caller's own id (API key id or token subject): a new session is opened for it. */
  userId: string;
  /** The HTTP request's Idempotency-Key: a retried call attaches to the run the first one started. */
  idempotencyKey?: string;
  /** The HTTP request's trace id, the run's when no Idempotency-Key names it. */
  traceId: string;
  /** Aborts when the MCP client leaves: the wait ends (the run goes on, found by its trace id). */
  signal: AbortSignal;
}

/** What `ask_agent` answers: the run's answer and where to find it again. */
export type McpAnswer = Pick<CompletionReply, 'answer' | 'trace_id' | 'session_id' | 'cost' | 'stop_reason' | 'reference'>;

/** What `get_run` answers: the run's state and, once ended, its result. */
export type McpRun = Pick<
  CompletionRun,
  | 'trace_id'
  | 'session_id'
  | 'agent_id'
  | 'kind'
  | 'status'
  | 'question'
  | 'answer'
  | 'cost'
  | 'stop_reason'
  | 'error'
  | 'created_at'
  | 'finished_at'
>;

/** What `search_knowledge` takes: the search API's request, its defaults filled in. */
export type McpSearch = Pick<SearchBody, 'kb_ids' | 'question' | 'top_k'>;

/**
 * The use cases behind the MCP server's tools (docs/mcp.md), each scoped to the caller's tenant: the
 * agents, a question to one of them as a normal completion run (on a session it names, else on a
 * new session of its own), a knowledge search, a document's parse and a run's state.
 */
export function createMcpToolCommands(deps: McpToolDeps) {
  /** The session a call runs on: the one it names, the one a retried call's first try opened, else a new one. */
  async function sessionFor(caller: Caller, request: McpAskRequest): Promise<string> {
    if (request.sessionId) return request.sessionId;
    if (request.idempotencyKey) {
      const earlier = await deps.completions.sessionOfKey(caller, request.idempotencyKey);
      if (earlier) return earlier;
    }
    const session = await deps.sessions.create(caller.tenantId, request.agentId, request.userId, {
      name: request.question.trim().slice(0, SESSION_NAME_CHARS),
      metadata: { source: 'mcp' },
    });
    return session.session_id;
  }

  return {
    /** The tenant's agents, newest first, at most MCP_AGENTS_MAX. */
    async listAgents(tenantId: string): Promise<McpAgent[]> {
      const agents = await deps.agents.newest(tenantId, MCP_AGENTS_MAX);
      return agents.map(({ agent_id, name, description }) => ({ agent_id, name, description }));
    },

    /**
     * Asks an agent as a completion run and waits for its answer while the caller stays, however
     * long the run takes (past COMPLETION_REPLY_WAIT_MS too: a tool call waiting for approval).
     */
    async ask(caller: Caller, request: McpAskRequest): Promise<McpAnswer> {
      // An unknown agent (or another tenant's) is 10004 before any session is opened for it.
      await deps.agents.get(caller.tenantId, request.agentId);
      const sessionId = await sessionFor(caller, request);
      const answer = await deps.completions.ask(caller, {
        agentId: request.agentId,
        body: {
          session_id: sessionId,
          question: request.question,
          stream: false,
          stream_format: 'answer',
          background: false,
          attachments: [],
          context_ids: [],
        },
        idempotencyKey: request.idempotencyKey,
        resumeAfter: null,
        traceId: request.traceId,
        signal: request.signal,
      });
      if (answer.kind === 'stream') throw new AppError(ErrorCodes.INTERNAL, 'the run answered with a stream it was not asked for');
      const reply =
        answer.kind === 'reply'
          ? answer.reply
          : await deps.completions.replyWhenEnded(caller.tenantId, answer.accepted.trace_id, request.signal);
      if (!reply)
        throw new AppError(
          ErrorCodes.INTERNAL,
          // A caller that left reads nothing (the run goes on, found by its trace id); one still here learns that the run ended without an answer.
          request.signal.aborted ? 'the client left before the run ended' : 'the run ended without an answer (stopped in Temporal)',
          { trace_id: answer.kind === 'reply' ? answer.reply.trace_id : answer.accepted.trace_id },
        );
      const { answer: text, trace_id, session_id, cost, stop_reason, reference } = reply;
      return { answer: text, trace_id, session_id, cost, stop_reason, reference };
    },

    /** A hybrid search over the tenant's knowledge bases (10004 for any other). */
    async searchKnowledge(tenantId: string, search: McpSearch): Promise<SearchResult> {
      // The search API's defaults for everything the tool does not take.
      const body = searchBody.safeParse(search);
      if (!body.success) throw invalid(`arguments: ${body.error.issues[0]!.message}`);
      return deps.search.search(tenantId, body.data);
    },

    /** A document of the tenant: its status and parsing progress. */
    getDocument(tenantId: string, docId: string): Promise<KnowledgeDocument> {
      return deps.documents.get(tenantId, docId);
    },

    /** A run of the tenant: its state and, once ended, its answer, cost or error. */
    async getRun(tenantId: string, traceId: string): Promise<McpRun> {
      const run = await deps.completions.get(tenantId, traceId);
      const { trace_id, session_id, agent_id, kind, status, question, answer, cost, stop_reason, error, created_at, finished_at } = run;
      return { trace_id, session_id, agent_id, kind, status, question, answer, cost, stop_reason, error, created_at, finished_at };
    },
  };
}
