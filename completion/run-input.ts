import type { BUILTIN_TOOL_NAMES } from '../common/schemas/agents';
import type { ChatMessage, ToolSpec } from '../common/chat-model';
import type { HttpToolDefinition } from '../upstream/http-tool';

/**
 * What a completion workflow is started with. The API builds it from the agent, the session and
 * its active skills (all read once, at the request); everything the run needs later is in here or
 * read by its activities. Pure types: imported by the workflow bundle.
 */
export interface CompletionInput {
  traceId: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  userId: string;
  question: string;
  /** The model's answer is streamed as it grows (`message` events): a streamed or a background request. */
  stream: boolean;
  /**
   * Every run writes its events (thinking, tool calls, answer, done) for GET …/events. Absent in
   * runs started before that: only streamed runs wrote them.
   */
  recordEvents?: boolean;
  /** The run waited this long behind earlier runs of its session: it counts inside its time bound. */
  queuedMs?: number;
  /** The run waited for (or cancelled) earlier runs of its session: its history is read again when it starts. */
  refreshHistory?: boolean;
  /**
   * The run's request took its idle session's turn (stores/session-turns.ts) and started the run's
   * workflow itself, not through the session's workflow: recording the run's end gives the turn back.
   */
  holdsSessionTurn?: boolean;
  /** The route the run takes (after defaults and the offline fallback). */
  route: RunRoute;
  /** No language model is configured: the run answers from the knowledge bases and says so. */
  offline: boolean;
  /** `providerId`: the tenant's model provider the agent names; absent: the installation's default provider. */
  model: { name: string; providerId?: string; temperature?: number; maxTokens?: number } | null;
  /** Agent instructions, active skills' instructions and the scenario's guidance. */
  systemPrompt: string;
  /** Earlier turns of the session, oldest first, already bounded. */
  history: ChatMessage[];
  tools: BoundTool[];
  /**
   * The agent's MCP servers by name (docs/mcp-tools.md): their tools are listed when the run starts
   * and offered beside `tools`. Names only: the activities read URLs and headers from the agent.
   * Absent in runs started before MCP servers existed, and when the agent has none.
   */
  mcpServers?: string[];
  /**
   * The agent's `approval`: calls of these tools wait for a person's decision, at most `timeoutMs`;
   * `separateDuties` is recorded with the run (the API checks who decides), not read by the workflow.
   */
  approval?: { tools: string[]; timeoutMs: number; separateDuties?: boolean };
  kbIds: string[];
  contextIds: string[];
  attachmentIds: string[];
  limits: {
    maxSteps: number;
    maxTokens: number;
    attachmentMaxChars: number;
    /** One model call's deadline and attempts (LLM_TIMEOUT_MS, LLM_MAX_ATTEMPTS). */
    modelCallTimeoutMs: number;
    modelAttempts: number;
    /** COMPLETION_RUN_TIMEOUT_MS; absent in runs started before the bound existed. */
    runTimeoutMs?: number;
    /**
     * The bound holds from the run's first workflow task without asking the `completion-run-time-bound`
     * patch, whose marker and search-attribute upsert every run's history would carry otherwise: set
     * since every worker keeps the bound (deploy workers before APIs). Absent in runs from before: the patch decides.
     */
    runTimeBoundAlways?: boolean;
    /** HISTORY_MAX_MESSAGES / HISTORY_MAX_CHARS, for a history read again when a queued run starts. */
    historyMaxMessages?: number;
    historyMaxChars?: number;
  };
  /** Epoch ms of the request (cost.duration_ms runs from here). */
  requestedAt: number;
  /** The first stream event number the workflow writes (the API wrote the ones before). */
  firstSeq: number;
}

export interface RunRoute {
  scenario: string;
  processor: string;
  mode: string;
  /** `@scenario@processor@mode@` */
  text: string;
  /** The processor calls a language model. */
  usesModel: boolean;
}

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** A skill tool as its manifest declares it (the HTTP call the tool makes). */
export type SkillToolDefinition = HttpToolDefinition & { description: string };

/**
 * A tool of one of the agent's MCP servers: the server by its name in the agent (its URL and sealed
 * headers are read by the activity, never carried in the workflow's history) and the tool as the
 * server names it; `timeoutMs` is the call's deadline.
 */
export interface McpToolBinding {
  kind: 'mcp';
  server: string;
  tool: string;
  timeoutMs: number;
}

export type ToolBinding =
  | { kind: 'builtin'; name: BuiltinToolName }
  | { kind: 'http'; skillId: string; skillName: string; tool: SkillToolDefinition }
  | McpToolBinding;

/** A tool as the model sees it, and what runs when the model calls it. */
export interface BoundTool {
  spec: ToolSpec;
  binding: ToolBinding;
}

/** A knowledge-base passage the run retrieved; `index` is the [n] answers cite. */
export interface Passage {
  index: number;
  chunk_id: string;
  doc_id: string;
  doc_name: string;
  kb_id: string;
  content: string;
  similarity: number;
}

export interface AttachmentText {
  file_id: string;
  name: string;
  text: string;
  truncated: boolean;
}

export interface RunContext {
  traceId: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  stream: boolean;
  recordEvents?: boolean;
  /** The run's Temporal run id, recorded with its end. */
  runId?: string;
  /** The run took its session's turn (CompletionInput.holdsSessionTurn): recording its end gives it back. */
  holdsSessionTurn?: boolean;
}

export const runContextOf = (input: CompletionInput, runId?: string): RunContext => ({
  traceId: input.traceId,
  tenantId: input.tenantId,
  agentId: input.agentId,
  sessionId: input.sessionId,
  stream: input.stream,
  ...(input.recordEvents !== undefined ? { recordEvents: input.recordEvents } : {}),
  ...(runId ? { runId } : {}),
  ...(input.holdsSessionTurn ? { holdsSessionTurn: true } : {}),
});

/** Whether the run writes its events (older runs: only streamed ones did). */
export const recordsEvents = (ctx: RunContext) => ctx.recordEvents ?? ctx.stream;

/** The error codes a failed run ends with (the spec's table). */
export const RUN_FAILURE_TYPE = 'CompletionFailed';

/** How sure a model step is, from how the model ended its turn: cut off at the token ceiling is 0.5. */
export const stepConfidence = (finishReason: string) => (finishReason === 'length' ? 0.5 : 1);

/** The step that produced the answer, recorded as `agent.step` with the run's other events. */
export interface AnswerStep {
  step: number;
  confidence: number;
}
