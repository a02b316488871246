import { AppError, ErrorCodes, invalid } from '../common/errors';
import type { Agent } from '../common/schemas/agents';
import type { ChatCompletion, ChatCompletionRequest, OpenAiModel } from '../common/schemas/openai';
import { completionOf } from '../completion/openai-replies';
import {
  continuesSession,
  conversationFingerprint,
  conversationKey,
  firstQuestion,
  type ReadConversation,
  readConversation,
} from '../completion/openai-conversation';
import type { CompletionRunStore } from '../stores/completion-runs';
import type { AgentStore } from '../stores/agents';
import type { SessionStore } from '../stores/sessions';
import type { Caller, CompletionAnswer, createCompletionCommands } from './completions';

/** The most agents GET /v1/openai/models lists (OpenAI's list has no pages). */
const OPENAI_MODELS_MAX = 1_000;
/** Sessions of one conversation key tried against a request's history (sessions sharing a first question). */
const CONVERSATION_CANDIDATES = 5;
/** A new conversation's session is named after the start of its first question. */
const SESSION_NAME_CHARS = 80;

export interface OpenAiChatDeps {
  agents: Pick<AgentStore, 'get' | 'newest'>;
  sessions: Pick<SessionStore, 'create' | 'conversationSessions' | 'conversation' | 'importTurns'>;
  completionRuns: Pick<CompletionRunStore, 'unendedRun'>;
  completions: Pick<ReturnType<typeof createCompletionCommands>, 'ask' | 'sessionOfKey' | 'replyWhenEnded'>;
}

/** One OpenAI chat completion request, as the route read it. */
export interface OpenAiChatRequest {
  body: ChatCompletionRequest;
  /** The caller's own id (API key id or token subject): a new conversation's session is opened for it. */
  userId: string;
  /** `X-Combo-Session-Id`: the session the conversation is bound to. */
  sessionId?: string;
  idempotencyKey?: string;
  /** The request's trace id, the run's when no Idempotency-Key names it. */
  traceId: string;
  signal: AbortSignal;
}

/** What the request comes to: the whole completion, or the run's stream (shaped into chunks by the route). */
export type OpenAiChatAnswer = { sessionId: string; traceId: string; replayed: boolean; created: number } & (
  | { kind: 'completion'; completion: ChatCompletion }
  | { kind: 'stream'; stream: Extract<CompletionAnswer, { kind: 'stream' }>; includeUsage: boolean }
);

const modelOf = (agent: Pick<Agent, 'agent_id' | 'name' | 'created_at'>, tenantId: string): OpenAiModel => ({
  id: agent.agent_id,
  object: 'model',
  created: Math.floor(Date.parse(agent.created_at) / 1000),
  owned_by: tenantId,
  name: agent.name,
});

const modelNotFound = (model: string) =>
  new AppError(ErrorCodes.NOT_FOUND, `The model \`${model}\` does not exist or you do not have access to it.`, {
    resource: 'model',
    id: model,
  });

/** What the agent does not take from an OpenAI request, refused by name rather than ignored. */
function refuseUnsupported(body: ChatCompletionRequest): void {
  for (const field of ['tools', 'functions'] as const) {
    if ((body[field]?.length ?? 0) > 0)
      throw invalid(`body.${field}: caller-sent tools are not supported; the agent runs its own tools (skills, MCP servers)`, {
        field: `body.${field}`,
      });
  }
  const format = body.response_format?.type;
  if (format !== undefined && format !== 'text')
    throw invalid(`body.response_format: only "text" is supported; an agent's structured output is its own`, {
      field: 'body.response_format',
    });
}

/**
 * The OpenAI-compatible use cases: an agent is a model, a chat completion is a normal run of it (see
 * docs/api/openai-compatible.md), and a conversation is held by one of our sessions: the one the
 * request names, else the one its history continues, else a new one that takes that history in.
 */
export function createOpenAiChatCommands(deps: OpenAiChatDeps) {
  /**
   * The session whose conversation the request's history continues, among those of its key; null
   * when none does. A session with a run going is not continued: two conversations that began alike
   * (the same greeting, the same answer) must not meet in one session while one of them runs.
   */
  async function continuedSession(tenantId: string, agentId: string, key: string, conversation: ReadConversation): Promise<string | null> {
    for (const sessionId of await deps.sessions.conversationSessions(tenantId, agentId, key, CONVERSATION_CANDIDATES)) {
      const [{ turns, trimmed }, running] = await Promise.all([
        deps.sessions.conversation(tenantId, sessionId),
        deps.completionRuns.unendedRun(tenantId, sessionId, ''),
      ]);
      if (running === null && continuesSession(turns, conversation.history, trimmed)) return sessionId;
    }
    return null;
  }

  /** A new conversation: a session (one `session.created`) holding the history the caller brought. */
  async function openSession(caller: Caller, request: OpenAiChatRequest, key: string, conversation: ReadConversation): Promise<string> {
    const session = await deps.sessions.create(
      caller.tenantId,
      request.body.model,
      request.userId,
      { name: firstQuestion(conversation).trim().slice(0, SESSION_NAME_CHARS), metadata: { source: 'openai' } },
      { conversationKey: key },
    );
    await deps.sessions.importTurns(caller.tenantId, session.session_id, conversation.history);
    return session.session_id;
  }

  async function sessionFor(
    caller: Caller,
    request: OpenAiChatRequest,
    conversation: ReadConversation,
    idempotencyKey: string | undefined,
  ): Promise<string> {
    if (request.sessionId) return request.sessionId;
    // A retried request goes where its first try went.
    if (idempotencyKey) {
      const earlier = await deps.completions.sessionOfKey(caller, idempotencyKey);
      if (earlier) return earlier;
    }
    const endUser = typeof request.body.user === 'string' ? request.body.user : undefined;
    const key = conversationKey(caller.principal, request.body.model, endUser, conversation);
    return (
      (await continuedSession(caller.tenantId, request.body.model, key, conversation)) ??
      (await openSession(caller, request, key, conversation))
    );
  }

  /** One agent as a model; an unknown one is OpenAI's `model_not_found` (404). */
  async function model(tenantId: string, id: string): Promise<OpenAiModel> {
    const agent = await deps.agents.get(tenantId, id).catch((err: unknown) => {
      throw err instanceof AppError && err.code === ErrorCodes.NOT_FOUND ? modelNotFound(id) : err;
    });
    return modelOf(agent, tenantId);
  }

  return {
    /** The tenant's agents as models, newest first, at most OPENAI_MODELS_MAX. */
    async models(tenantId: string): Promise<OpenAiModel[]> {
      return (await deps.agents.newest(tenantId, OPENAI_MODELS_MAX)).map((agent) => modelOf(agent, tenantId));
    },

    model,

    /**
     * Runs the agent on the request's last message in the conversation's session, as a completion
     * run: streamed (the route shapes its events into chunks) or whole. A whole answer is waited for
     * while the caller stays, however long the run takes (a tool call waiting for approval, say).
     */
    async chat(caller: Caller, request: OpenAiChatRequest): Promise<OpenAiChatAnswer> {
      const { body } = request;
      const created = Math.floor(Date.now() / 1000);
      refuseUnsupported(body);
      const conversation = readConversation(body.messages);
      await model(caller.tenantId, body.model);
      // The key covers the whole request, history included: reused with another history, it is another run.
      const idempotencyKey = request.idempotencyKey && `${request.idempotencyKey}|${conversationFingerprint(conversation)}`;
      const sessionId = await sessionFor(caller, request, conversation, idempotencyKey);
      const stream = body.stream === true;
      const answer = await deps.completions.ask(caller, {
        agentId: body.model,
        body: {
          session_id: sessionId,
          question: conversation.question,
          stream,
          stream_format: 'delta',
          background: false,
          attachments: [],
          context_ids: [],
        },
        idempotencyKey,
        resumeAfter: null,
        traceId: request.traceId,
        signal: request.signal,
      });
      const common = { sessionId, replayed: answer.replayed, created };
      if (answer.kind === 'stream')
        return {
          ...common,
          traceId: answer.traceId,
          kind: 'stream',
          stream: answer,
          includeUsage: body.stream_options?.include_usage === true,
        };
      if (answer.kind === 'reply')
        return {
          ...common,
          traceId: answer.reply.trace_id,
          kind: 'completion',
          completion: completionOf(answer.reply, body.model, created),
        };
      const traceId = answer.accepted.trace_id;
      const reply = await deps.completions.replyWhenEnded(caller.tenantId, traceId, request.signal);
      if (!reply)
        throw new AppError(
          ErrorCodes.INTERNAL,
          // A caller that left reads nothing; one still here learns that the run ended without an answer.
          request.signal.aborted ? 'the client left before the run ended' : 'the run ended without an answer (stopped in Temporal)',
          { trace_id: traceId },
        );
      return { ...common, traceId: reply.trace_id, kind: 'completion', completion: completionOf(reply, body.model, created) };
    },
  };
}
