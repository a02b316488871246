// Generated from clients/openapi.json by clients/codegen/typescript.ts (npm run clients:generate): do not edit.

import type { Uploadable } from '../uploads';

/** What the run is doing: `accepted` (the first event), `queued` (it waits for an earlier run of its session), `retrieval`, `model`, `model_retry` */
export interface StreamEventThinking {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  phase: 'accepted' | 'queued' | 'retrieval' | 'model' | 'model_retry';
  /** `accepted` only */
  trace_id?: string;
  /** `accepted` only: the route the run takes */
  route?: string;
  /** `accepted` only: true when no language model is configured */
  offline?: boolean;
  /** `model` / `model_retry`: the model call of the run, from 1 */
  step?: number;
  /** `model` / `model_retry`: the attempt of that call, from 1 */
  attempt?: number;
}

/** The model called a tool with these arguments */
export interface StreamEventToolCall {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  tool: string;
  args: Record<string, unknown>;
}

/** The model called a tool that needs a person's approval: the run waits (`waiting_approval`) for POST …/approvals/{approval_id}, at most until `expires_at` (then it counts as rejected) */
export interface StreamEventApprovalRequired {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  /** approval id of one tool call waiting for a person */
  approval_id: string;
  tool: string;
  args: Record<string, unknown>;
  step: number;
  /** ISO 8601 UTC timestamp */
  expires_at: string;
}

/** A waiting tool call was decided: `approved` (it runs now), `rejected` or `timed_out` (the model is told it did not run) */
export interface StreamEventApprovalDecided {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  /** approval id of one tool call waiting for a person */
  approval_id: string;
  tool: string;
  status: 'approved' | 'rejected' | 'timed_out';
  comment: string | null;
}

export interface StreamEventToolResult {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  tool: string;
  /** the tool's JSON result; a failed tool gives `{ "error": "..." }` */
  result?: unknown;
}

export interface StreamEventMessage {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  /** the whole answer so far of the current model step; always there with `stream_format: answer` (the default). With `delta`: only on the last message (the whole answer) and on a message that replaces the text (a new model step) */
  answer?: string;
  /** `stream_format: delta` only: the text to append to the answer so far; the message then carries no `answer` */
  delta?: string;
  /** on the last message only */
  reference?: Reference[];
}

export interface Reference {
  /** the [n] the answer cites */
  index: number;
  chunk_id: string;
  /** document id */
  doc_id: string;
  doc_name: string;
  kb_id: string;
  content: string;
  similarity: number;
}

/** The run failed; always followed by `done` */
export interface StreamEventError {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  /** 30001, 30002 or 20001 */
  code: number;
  message: string;
}

/** The last event; `cost` is absent when the run ended without finishing its stream */
export interface StreamEventDone {
  /** when the event was recorded (ISO 8601 UTC, milliseconds); a run's timeline is read from these */
  timestamp: string;
  /** session id */
  session_id: string;
  /** trace id of one completion run */
  trace_id: string;
  cost?: Cost;
  /** why the run ended: a StopReason, or `failed` after an `error` event; absent in streams written before it existed */
  stop_reason?: 'answered' | 'step_limit' | 'token_limit' | 'canceled' | 'failed';
}

export interface Cost {
  /** prompt + generated tokens of every model call of the run */
  tokens: number;
  /** from the request to the recorded answer */
  duration_ms: number;
  /** prompt tokens of every model call of the run; absent on runs recorded before the split was kept */
  input_tokens?: number;
  /** generated tokens of every model call of the run; absent on runs recorded before the split was kept */
  output_tokens?: number;
  /** what the run's model calls cost at the prices configured for their models (per million input and output tokens, in the currency of those prices), rounded to 6 decimal places; calls of a model without a price add nothing. null: no call of the run had a price; absent on runs recorded before amounts were kept */
  amount?: number | null;
}

/** One `data:` line of the stream (no `event:` names), ending with `data: [DONE]`. A failure mid-stream is a `data:` line holding `{ "error": OpenAIError.error }` */
export interface OpenAIChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    delta: {
      role?: 'assistant';
      content?: string;
    };
    logprobs: null;
    /** `stop`: answered (or cancelled); `length`: the run hit COMPLETION_MAX_STEPS or COMPLETION_MAX_TOKENS */
    finish_reason: 'stop' | 'length' | null;
  }>;
  usage?: OpenAIUsage;
}

/** the run's input, output and total tokens (every model call of the run) */
export type OpenAIUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
} | null;

/** OpenAI's error body, so that the official clients raise their own typed errors */
export interface OpenAIError {
  error: {
    message: string;
    /** `invalid_request_error`, `requests` (429), `server_error` */
    type: string;
    /** the offending field, for a 400 */
    param: string | null;
    /** e.g. `model_not_found`, `invalid_api_key`, `rate_limit_exceeded`, `session_busy` */
    code: string | null;
    /** the contract's error code (10001-30002) */
    combo_code: number;
    trace_id: string;
  };
}

export interface Agent {
  /** agent id */
  agent_id: string;
  name: string;
  description: string;
  instructions: string;
  model: ModelSettings;
  tools: string[];
  kb_ids: string[];
  skills: string[];
  /** MCP servers whose tools the agent may call (docs/mcp-tools.md) */
  mcp_servers: McpServer[];
  default_route: string | null;
  multitask_strategy: MultitaskStrategy;
  approval: ApprovalSettings | null;
  metadata: Record<string, string>;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

/** The agent's model: a provider of the tenant and its model, or overrides of the installation's default provider */
export interface ModelSettings {
  /** the tenant's model provider (`/v1/model-providers`) the agent's model calls go to (must exist: 10004); absent: the installation's default provider (LLM_*) */
  provider_id?: string;
  /** model name. With `provider_id`: one of the provider's `models` (10001 otherwise), the provider's first model when absent; without: the installation's default model (LLM_MODEL) when absent */
  model?: string;
  temperature?: number;
  /** ceiling on tokens generated per LLM call */
  max_tokens?: number;
}

/** An MCP server whose tools the agent may call; header values are never shown */
export interface McpServer {
  name: string;
  url: string;
  /** the names of the stored headers (their values are never shown) */
  header_names: string[];
  allowed_tools: string[];
  timeout_ms: number;
}

/** a completion on a session whose earlier run is still going: `reject` it (10005 naming the running trace_id), `enqueue` it (it starts when the earlier runs end, in order), `interrupt` the earlier runs (cancelled as by POST …/cancel, their partial answers kept) and start it, or `rollback` them (cancelled and their turns removed from the session history) and start it */
export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt' | 'rollback';

/** Every value of `MultitaskStrategy`, in the document's order (for pickers and checks). */
export const MultitaskStrategyValues = ['reject', 'enqueue', 'interrupt', 'rollback'] as const satisfies readonly MultitaskStrategy[];

/** Tool calls that need a person's approval: the run waits (`waiting_approval`) until `POST /v1/combo/completions/{trace_id}/approvals/{approval_id}` decides, or `timeout_s` passes (rejected) */
export interface ApprovalSettings {
  /** tools whose calls wait for a person: built-in names, skill tools as `<skill>__<tool>`, MCP server tools as `<server>__<tool>` */
  tools: string[];
  /**
   * how long a call waits for a decision before it counts as rejected (default 120); at most half of the run time bound (COMPLETION_RUN_TIMEOUT_MS), else 10001, and never longer than half of what remains of the run
   * @default 120
   */
  timeout_s?: number;
  /**
   * separation of duties: the person who asked for the run (its `requested_by`) may not decide its tool calls (10003), whatever their role; another member or admin must. A trigger's or cron job's run (no requester) is decided by admins only. Default false; a PUT whose `approval` leaves it out sets it false. Taken as it was when the run started
   * @default false
   */
  separate_duties?: boolean;
}

export interface Error {
  /** error code from the spec table (10001-30002) */
  code: number;
  data: {
    trace_id?: string;
    /** offending field, for 10001 */
    field?: string;
    [key: string]: unknown;
  };
  message: string;
}

export interface CreateAgentRequest {
  name: string;
  /** @default "" */
  description?: string;
  /**
   * system instructions given to the model on every run
   * @default ""
   */
  instructions?: string;
  model?: ModelSettings;
  /**
   * built-in tools the model may call in every scenario (the `agent` scenario offers all that apply); skills add their own
   * @default []
   */
  tools?: Array<'search_knowledge' | 'read_attachment' | 'current_time'>;
  /**
   * knowledge bases the agent may search (must exist: 10004)
   * @default []
   */
  kb_ids?: string[];
  /**
   * installed skills active on every session of the agent (must exist: 10004)
   * @default []
   */
  skills?: string[];
  /**
   * MCP servers whose tools the agent may call, at most 8 (docs/mcp-tools.md). A server's name must not be the name of one of the agent's skills (10001); the model sees its tools as `<server>__<tool>`
   * @default []
   */
  mcp_servers?: McpServerInput[];
  /**
   * route used when a completion names none
   * @default null
   */
  default_route?: string | null;
  /**
   * the default of the agent's completions that name none
   * @default "reject"
   */
  multitask_strategy?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
  /**
   * tool calls that wait for a person's approval; null: none
   * @default null
   */
  approval?: ApprovalSettings | null;
  /**
   * Free-form string labels (at most 32 keys, values up to 1000 characters)
   * @default {}
   */
  metadata?: Record<string, string>;
}

/** An MCP server (Streamable HTTP) whose tools the agent may call */
export interface McpServerInput {
  /** the server's name in the agent; the model sees its tools as `<name>__<tool>` */
  name: string;
  /** the server's Streamable HTTP endpoint (http or https, no credentials). Private, loopback and reserved addresses are refused (10001) unless the installation sets ALLOW_PRIVATE_URLS or lists the host in MCP_PRIVATE_HOSTS */
  url: string;
  /** request headers sent on every call (an `Authorization` bearer token, an API key), at most 16. Their values are stored encrypted and never shown again (only `header_names`). Absent on an update: the headers stored for the server of the same name are kept; `{}` removes them */
  headers?: Record<string, string>;
  /** the server's tools the model may call (others are never offered); each as the server names it. A name the server does not list is skipped */
  allowed_tools: string[];
  /** one tool call's deadline in ms (default 10000); a call that takes longer, on both attempts, fails the run with 30002 */
  timeout_ms?: number;
}

export interface AgentPage {
  items: Agent[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface UpdateAgentRequest {
  name?: string;
  description?: string;
  /** system instructions given to the model on every run */
  instructions?: string;
  model?: ModelSettings;
  /** built-in tools the model may call in every scenario (the `agent` scenario offers all that apply); skills add their own */
  tools?: Array<'search_knowledge' | 'read_attachment' | 'current_time'>;
  /** knowledge bases the agent may search (must exist: 10004) */
  kb_ids?: string[];
  /** installed skills active on every session of the agent (must exist: 10004) */
  skills?: string[];
  /** MCP servers whose tools the agent may call, at most 8 (docs/mcp-tools.md). A server's name must not be the name of one of the agent's skills (10001); the model sees its tools as `<server>__<tool>` */
  mcp_servers?: McpServerInput[];
  /** route used when a completion names none */
  default_route?: string | null;
  /** the default of the agent's completions that name none */
  multitask_strategy?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
  /** tool calls that wait for a person's approval; null: none */
  approval?: ApprovalSettings | null;
  /** Free-form string labels (at most 32 keys, values up to 1000 characters) */
  metadata?: Record<string, string>;
}

export interface Deleted {
  deleted: true;
}

export interface Session {
  /** session id */
  session_id: string;
  /** agent id */
  agent_id: string;
  tenant_id: string;
  user_id: string;
  name: string | null;
  status: SessionStatus;
  metadata: Record<string, string>;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
  /** ISO 8601 UTC timestamp */
  archived_at: string | null;
}

export type SessionStatus = 'active' | 'archived';

/** Every value of `SessionStatus`, in the document's order (for pickers and checks). */
export const SessionStatusValues = ['active', 'archived'] as const satisfies readonly SessionStatus[];

export interface CreateSessionRequest {
  name?: string;
  /** end user the session serves; defaults to the caller (API key id or JWT subject) */
  user_id?: string;
  /**
   * Free-form string labels (at most 32 keys, values up to 1000 characters)
   * @default {}
   */
  metadata?: Record<string, string>;
}

export interface SessionPage {
  items: Session[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface Message {
  /** message id */
  message_id: string;
  /** session id */
  session_id: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  metadata: Record<string, string>;
  /** ISO 8601 UTC timestamp */
  created_at: string;
}

export interface CreateMessageRequest {
  /** @default "user" */
  role?: 'user' | 'assistant' | 'system' | 'tool';
  content: string;
  /**
   * Free-form string labels (at most 32 keys, values up to 1000 characters)
   * @default {}
   */
  metadata?: Record<string, string>;
}

export interface MessagePage {
  items: Message[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface CompletionReply {
  /** session id */
  session_id: string;
  /** Markdown */
  answer: string;
  reference: Reference[];
  /** trace id of one completion run */
  trace_id: string;
  cost: Cost;
  /** the route the run took */
  route: string;
  /** the model that answered; null when no language model was used */
  model: string | null;
  /** true: no language model is configured; the answer quotes knowledge-base passages and says so */
  offline: boolean;
  stop_reason: StopReason;
  /** what the run produced besides the answer (review report, imported items) */
  artifacts: Array<Record<string, unknown>>;
}

/** `step_limit` / `token_limit`: the run hit COMPLETION_MAX_STEPS / COMPLETION_MAX_TOKENS and answers with what it has; `canceled`: the run was cancelled (POST …/cancel, or a later run's `interrupt` / `rollback`) and `answer` is what it had written by then */
export type StopReason = 'answered' | 'step_limit' | 'token_limit' | 'canceled';

/** Every value of `StopReason`, in the document's order (for pickers and checks). */
export const StopReasonValues = ['answered', 'step_limit', 'token_limit', 'canceled'] as const satisfies readonly StopReason[];

/** One server-sent event of a completion stream (its `event:`, `id:` and `data:` lines); see the operation description. */
export type CompletionEvent =
  ThinkingEvent | ToolCallEvent | ApprovalRequiredEvent | ApprovalDecidedEvent | ToolResultEvent | MessageEvent | ErrorEvent | DoneEvent;

export interface ThinkingEvent {
  event: 'thinking';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventThinking;
}

export interface ToolCallEvent {
  event: 'tool_call';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventToolCall;
}

export interface ApprovalRequiredEvent {
  event: 'approval_required';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventApprovalRequired;
}

export interface ApprovalDecidedEvent {
  event: 'approval_decided';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventApprovalDecided;
}

export interface ToolResultEvent {
  event: 'tool_result';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventToolResult;
}

export interface MessageEvent {
  event: 'message';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventMessage;
}

export interface ErrorEvent {
  event: 'error';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventError;
}

export interface DoneEvent {
  event: 'done';
  /** `<trace_id>:<n>`, n counting from 0; send it back as Last-Event-ID to resume */
  id: string;
  data: StreamEventDone;
}

/** HTTP 202, code 0: the run is accepted and goes on (a `background` request, or one that did not answer within COMPLETION_REPLY_WAIT_MS); follow it with `links.self`. */
export interface RunAccepted {
  /** trace id of one completion run */
  trace_id: string;
  /** session id */
  session_id: string;
  /** where the run is now; it goes on */
  status: 'running' | 'queued' | 'waiting_approval';
  links: {
    /** GET it for the run's status and, once ended, its result */
    self: string;
    /** its event stream (text/event-stream), from the start or after Last-Event-ID */
    events: string;
  };
}

export interface CompletionRequest {
  /** an active session of this agent (create it first) (`ses_…`; one that names nothing: 10004) */
  session_id: string;
  /** the user message */
  question: string;
  /**
   * `true`: a text/event-stream reply (see the description)
   * @default false
   */
  stream?: boolean;
  /**
   * how `message` events carry the answer: `answer` (default), the whole answer so far in every one; `delta`, only the new text (`delta`), the last `message` before `done` carrying the whole `answer`. Also a query parameter of GET …/events
   * @default "answer"
   */
  stream_format?: 'answer' | 'delta';
  /**
   * `true`: answer at once with HTTP 202 `RunAccepted` (not with `stream`); the run goes on whatever the client does, and is followed with its links
   * @default false
   */
  background?: boolean;
  /** when the session already has a run going; default: the agent's `multitask_strategy` (`reject` unless set) */
  multitask_strategy?: 'reject' | 'enqueue' | 'interrupt' | 'rollback';
  /** `@scenario@processor@mode@` (GET /v1/combo/scenarios); default: the agent's default_route, else `@chat@llm@default@` */
  route?: string;
  /**
   * files uploaded with POST /v1/files whose text the run reads (at most 10)
   * @default []
   */
  attachments?: string[];
  /**
   * knowledge-base documents retrieval is restricted to (documents of the agent's knowledge bases)
   * @default []
   */
  context_ids?: string[];
}

export interface CompletionRun {
  /** session id */
  session_id: string;
  /** trace id of one completion run */
  trace_id: string;
  kind: RunKind;
  /** the route the run took */
  route: string;
  agent_id: string;
  status: RunStatus;
  /** the run's Temporal workflow id (`completion-<trace_id>`; older runs: `completion-<session_id>`) */
  workflow_id: string;
  /** its Temporal run id; null while queued; for a running run, in lists, null until its end is recorded (GET of the run reads it from Temporal) */
  run_id: string | null;
  /** what was asked: the completion's `question`, or the question an agent task's template built (its first 32,000 characters); null on runs recorded before runs kept their question */
  question: string | null;
  /** Markdown; null until completed */
  answer: string | null;
  reference: Reference[];
  cost: Cost | null;
  model: string | null;
  offline: boolean;
  stop_reason: StopReason | null;
  artifacts: Array<Record<string, unknown>>;
  error: {
    code: number;
    message: string;
  } | null;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** when its workflow started (later than created_at for a queued run) */
  started_at: string | null;
  /** ISO 8601 UTC timestamp */
  finished_at: string | null;
  /** the run's tool calls that needed a person's approval, oldest first */
  approvals: ToolApproval[];
  /** the person who asked for the run (the API key's owner, or the console user): under the agent's `approval.separate_duties` they may not decide its tool calls; null for trigger and cron runs (under separate duties only admins decide those) and for runs recorded before this was kept */
  requested_by: string | null;
  /** the run's workflows in the Temporal UI (found by its TraceId search attribute); null when the service has no TEMPORAL_UI_URL */
  temporal_ui_url: string | null;
}

/** `chat`: a completion asked through the API; `trigger`: started by an event trigger; `cron`: started by a cron job */
export type RunKind = 'chat' | 'trigger' | 'cron';

/** Every value of `RunKind`, in the document's order (for pickers and checks). */
export const RunKindValues = ['chat', 'trigger', 'cron'] as const satisfies readonly RunKind[];

/** `queued`: waiting for an earlier run of its session (`enqueue`); `running`; `waiting_approval`: a tool call waits for a person; then `completed`, `failed` or `canceled` */
export type RunStatus = 'queued' | 'running' | 'waiting_approval' | 'completed' | 'failed' | 'canceled';

/** Every value of `RunStatus`, in the document's order (for pickers and checks). */
export const RunStatusValues = [
  'queued',
  'running',
  'waiting_approval',
  'completed',
  'failed',
  'canceled',
] as const satisfies readonly RunStatus[];

/** A tool call waiting for (or given) a person's decision */
export interface ToolApproval {
  /** approval id of one tool call waiting for a person */
  approval_id: string;
  /** the tool as the model called it (`<skill>__<tool>` for a skill tool) */
  tool: string;
  /** the arguments the model gave: what the tool would run with */
  arguments: Record<string, unknown>;
  /** the model call of the run that asked for it, from 1 */
  step: number;
  status: ApprovalStatus;
  /** the decider's comment (given to the model with a rejection) */
  comment: string | null;
  /** who decided: `api_key:<key id>` or `user:<console user>`; null when pending or timed out */
  decided_by: string | null;
  /** ISO 8601 UTC timestamp */
  requested_at: string;
  /** when it counts as rejected if nobody decides */
  expires_at: string;
  /** ISO 8601 UTC timestamp */
  decided_at: string | null;
}

/** `pending`: waiting for a decision; `approved` (the tool ran); `rejected` (the model was told and went on); `timed_out`: no decision within `timeout_s`, counted as rejected; `canceled`: the run ended (cancelled, failed) before a decision */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'timed_out' | 'canceled';

/** Every value of `ApprovalStatus`, in the document's order (for pickers and checks). */
export const ApprovalStatusValues = [
  'pending',
  'approved',
  'rejected',
  'timed_out',
  'canceled',
] as const satisfies readonly ApprovalStatus[];

export interface ApprovalDecision {
  /** trace id of one completion run */
  trace_id: string;
  approval: ToolApproval;
  /** true: this request decided it; false: it had been decided the same way before (a repeated request) */
  applied: boolean;
}

export interface ApprovalDecisionRequest {
  decision: 'approve' | 'reject';
  /** kept with the decision; a rejection passes it to the model */
  comment?: string;
}

export interface CompletionRunPage {
  items: CompletionRun[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

/** the tenant's agents, newest first (at most 1,000) */
export interface OpenAIModelList {
  object: 'list';
  data: OpenAIModel[];
}

export interface OpenAIModel {
  /** the agent id: use it as `model` */
  id: string;
  object: 'model';
  /** when the agent was created, Unix seconds */
  created: number;
  /** the tenant */
  owned_by: string;
  /** the agent's name (beyond OpenAI's fields) */
  name: string;
}

export interface OpenAIChatCompletion {
  /** `chatcmpl-<trace_id>`: the run is GET /v1/combo/completions/{trace_id} */
  id: string;
  object: 'chat.completion';
  /** Unix seconds */
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: {
      role: 'assistant';
      content: string;
      refusal: null;
    };
    logprobs: null;
    /** `stop`: answered (or cancelled); `length`: the run hit COMPLETION_MAX_STEPS or COMPLETION_MAX_TOKENS */
    finish_reason: 'stop' | 'length';
  }>;
  usage: OpenAIUsage;
}

/** One `data:` line of a streamed chat completion (no `event:` or `id:` lines), as OpenAI's clients read them. */
export type OpenAIChatCompletionStreamFrame = OpenAIChunkFrame | OpenAIErrorFrame | OpenAIDoneFrame;

export interface OpenAIChunkFrame {
  data: OpenAIChatCompletionChunk;
}

export interface OpenAIErrorFrame {
  data: OpenAIError;
}

/** the last frame */
export interface OpenAIDoneFrame {
  data: '[DONE]';
}

/** OpenAI's chat completion request. Sampling settings (`temperature`, `max_tokens`, `top_p`, `stop`, `seed`, ...) and other fields are accepted and ignored: the agent's own model settings apply. */
export interface OpenAIChatCompletionRequest {
  /** the agent to run: an `id` of GET /v1/openai/models (`agt_…`) */
  model: string;
  /** the conversation; the last one must be `user` (its text is the question) */
  messages: OpenAIChatMessage[];
  stream?: boolean | null;
  /** `include_usage: true`: a last chunk before `[DONE]` carries `usage` (and every chunk `usage: null`) */
  stream_options?: {
    include_usage?: boolean;
    [key: string]: unknown;
  } | null;
  /** only 1 */
  n?: number | null;
  /** caller-sent tools are not supported: a non-empty list is 400 (the agent runs its own tools) */
  tools?: unknown[] | null;
  /** not supported: a non-empty list is 400 */
  functions?: unknown[] | null;
  /** the end user (front ends sharing one API key): conversations are found again per end user */
  user?: string | null;
  /** only `{ "type": "text" }`: structured output is the agent's own (400 otherwise) */
  response_format?: {
    type: string;
    [key: string]: unknown;
  } | null;
  [key: string]: unknown;
}

export interface OpenAIChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';
  content?: string | Array<OpenAITextPart | OpenAIOtherPart> | null;
  name?: string;
  [key: string]: unknown;
}

/** a text part; other part types (images, audio, files) are refused (400) */
export interface OpenAITextPart {
  type: 'text';
  text: string;
  [key: string]: unknown;
}

/** a part of another type: refused (400) */
export interface OpenAIOtherPart {
  type: string;
  [key: string]: unknown;
}

/** A JSON-RPC 2.0 response: `result` or `error` */
export interface McpJsonRpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  /** the method's result (a tool's failure is a result with `isError: true`); absent with `error` */
  result?: Record<string, unknown>;
  /** a protocol error (unknown method or tool, invalid params); absent with `result` */
  error?: {
    code: number;
    message: string;
    data?: unknown;
  };
}

/** A JSON-RPC 2.0 request or notification of the Model Context Protocol */
export interface McpJsonRpcMessage {
  jsonrpc: '2.0';
  /** absent on notifications (answered 202 without a body) */
  id?: string | number;
  /** `initialize`, `tools/list`, `tools/call`, `ping`, `notifications/initialized`, … */
  method: string;
  params?: Record<string, unknown>;
}

/** RFC 9728 protected-resource metadata */
export interface OAuthProtectedResourceMetadata {
  /** the protected resource: PUBLIC_BASE_URL + /v1/mcp */
  resource: string;
  /** the identity provider (JWT_ISSUER) whose tokens it takes */
  authorization_servers: string[];
  bearer_methods_supported: 'header'[];
  resource_name: string;
}

export interface ScenarioList {
  items: Scenario[];
}

export interface Scenario {
  scenario_id: string;
  description: string;
  /** processors this scenario accepts in a route */
  processors: string[];
  default_processor: string;
  /** outbound events a run of this scenario emits when it finishes (besides session.finished) */
  events: EventName[];
}

export type EventName =
  | 'session.created'
  | 'session.finished'
  | 'session.archived'
  | 'tool.called'
  | 'tool.error'
  | 'agent.step'
  | 'review.completed'
  | 'import.completed'
  | 'cost.threshold_exceeded'
  | 'run.failed'
  | 'run.canceled'
  | 'run.approval_required'
  | 'run.approval_decided'
  | 'document.parsed'
  | 'document.failed';

/** Every value of `EventName`, in the document's order (for pickers and checks). */
export const EventNameValues = [
  'session.created',
  'session.finished',
  'session.archived',
  'tool.called',
  'tool.error',
  'agent.step',
  'review.completed',
  'import.completed',
  'cost.threshold_exceeded',
  'run.failed',
  'run.canceled',
  'run.approval_required',
  'run.approval_decided',
  'document.parsed',
  'document.failed',
] as const satisfies readonly EventName[];

export interface ProcessorList {
  items: Processor[];
}

export interface Processor {
  processor_id: string;
  description: string;
  /** the processor calls a language model (without one configured, the route is answered offline) */
  uses_model: boolean;
  modes: ProcessorMode[];
}

export interface ProcessorMode {
  mode: string;
  description: string;
}

export interface ConsoleToken {
  /** the JWT: send it as `Authorization: Bearer <token>`; keep it in memory only */
  token: string;
  token_type: 'Bearer';
  /** the token stops working then (CONSOLE_TOKEN_TTL_S, never after the key expires) */
  expires_at: string;
  /** seconds until expires_at */
  expires_in: number;
  tenant_id: string;
  /** the token's subject: the owner of the key it came from */
  user_id: string;
  roles: Role[];
  /** the API key the token came from; revoking it ends the token */
  key_id: string;
}

export type Role = 'admin' | 'member';

/** Every value of `Role`, in the document's order (for pickers and checks). */
export const RoleValues = ['admin', 'member'] as const satisfies readonly Role[];

export type ConsoleTokenRequest = Record<string, unknown>;

export interface CreatedApiKey {
  /** API key id (public) */
  key_id: string;
  /** the user the key belongs to. Keys created before keys were personal (and the bootstrap key) own themselves: owner_id = key_id */
  owner_id: string;
  name: string;
  role: Role;
  /** first characters of the key, to recognise it */
  prefix: string;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  expires_at: string | null;
  /** ISO 8601 UTC timestamp */
  revoked_at: string | null;
  /** the secret key; shown only in this reply, stored hashed */
  api_key: string;
}

export interface CreateApiKeyRequest {
  name: string;
  /**
   * at most the role of the caller: a member cannot create an admin key
   * @default "member"
   */
  role?: 'admin' | 'member';
  /** admins only: create the key for another user of the tenant. Default: the caller (its key owner or JWT subject) */
  owner_id?: string;
  /** ISO 8601; the key stops working then */
  expires_at?: string;
}

export interface ApiKeyPage {
  items: ApiKey[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface ApiKey {
  /** API key id (public) */
  key_id: string;
  /** the user the key belongs to. Keys created before keys were personal (and the bootstrap key) own themselves: owner_id = key_id */
  owner_id: string;
  name: string;
  role: Role;
  /** first characters of the key, to recognise it */
  prefix: string;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  expires_at: string | null;
  /** ISO 8601 UTC timestamp */
  revoked_at: string | null;
}

export interface EventPage {
  items: Event[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface Event {
  event_id: string;
  event: EventName;
  tenant_id: string;
  /** ISO 8601 UTC timestamp */
  timestamp: string;
  data: Record<string, unknown>;
}

export interface WebhookSubscriptionWithSecret {
  /** webhook subscription id */
  subscription_id: string;
  url: string;
  events: EventName[];
  description: string;
  enabled: boolean;
  signing: WebhookSigning;
  /** last four characters of the secret, to tell secrets apart */
  secret_last4: string;
  /** until when deliveries also carry a signature made with the secret replaced by the last rotation; null when they do not */
  previous_secret_valid_until: string | null;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
  /** the signing secret; shown only in this reply */
  secret: string;
}

/** how deliveries are signed. `combo` (the default): the X-Combo-Signature headers alone. `standard_webhooks`: also the Standard Webhooks headers (https://www.standardwebhooks.com) `webhook-id` (the event id), `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`, space-separated during a rotation's grace), so consumers can verify with a standardwebhooks library. The secret must then be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 bytes (generated secrets are); an existing subscription switches only when its secret already is (rotate-secret gives one) */
export type WebhookSigning = 'combo' | 'standard_webhooks';

/** Every value of `WebhookSigning`, in the document's order (for pickers and checks). */
export const WebhookSigningValues = ['combo', 'standard_webhooks'] as const satisfies readonly WebhookSigning[];

export interface CreateWebhookSubscriptionRequest {
  /** http(s) URL; private and loopback addresses are refused unless ALLOW_PRIVATE_URLS */
  url: string;
  events: EventName[];
  /** shared signing secret; generated when absent (`whsec_` + random characters; with `standard_webhooks` signing, `whsec_` + base64 of 32 random bytes). Shown only in the reply that sets it. */
  secret?: string;
  /** @default "" */
  description?: string;
  /** @default true */
  enabled?: boolean;
  signing?: WebhookSigning;
}

export interface WebhookSubscriptionPage {
  items: WebhookSubscription[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface WebhookSubscription {
  /** webhook subscription id */
  subscription_id: string;
  url: string;
  events: EventName[];
  description: string;
  enabled: boolean;
  signing: WebhookSigning;
  /** last four characters of the secret, to tell secrets apart */
  secret_last4: string;
  /** until when deliveries also carry a signature made with the secret replaced by the last rotation; null when they do not */
  previous_secret_valid_until: string | null;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

export interface UpdateWebhookSubscriptionRequest {
  url?: string;
  events?: EventName[];
  description?: string;
  enabled?: boolean;
  signing?: WebhookSigning;
}

export interface RotateWebhookSecretRequest {
  /** shared signing secret; generated when absent (`whsec_` + random characters; with `standard_webhooks` signing, `whsec_` + base64 of 32 random bytes). Shown only in the reply that sets it. */
  secret?: string;
  /**
   * how long deliveries keep carrying the replaced secret's signature beside the new one, 0-604800 seconds (default 0: the new secret alone from now on)
   * @default 0
   */
  grace_seconds?: number;
}

export interface WebhookDelivery {
  /** delivery id */
  delivery_id: string;
  /** webhook subscription id */
  subscription_id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  attempts: DeliveryAttempt[];
  /** the Temporal workflow that delivers it */
  workflow_id: string;
  /** the dead letter this delivery replays */
  replay_of: string | null;
  /** the historical replay that made it */
  replay_id: string | null;
  /** on a dead letter: the delivery that last replayed it by hand (POST /v1/webhook/dead-letters/{delivery_id}/replay); null when it has not been */
  replayed_by: string | null;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  delivered_at: string | null;
  /** ISO 8601 UTC timestamp */
  dead_at: string | null;
}

/** `dead`: all five attempts failed; the delivery is in the dead-letter queue */
export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** Every value of `DeliveryStatus`, in the document's order (for pickers and checks). */
export const DeliveryStatusValues = ['pending', 'delivered', 'dead'] as const satisfies readonly DeliveryStatus[];

export interface DeliveryAttempt {
  attempt: number;
  /** ISO 8601 UTC timestamp */
  at: string;
  ok: boolean;
  /** HTTP status, null when no answer came */
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface WebhookDeliveryPage {
  items: WebhookDelivery[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface WebhookReplay {
  replay_id: string;
  workflow_id: string;
  status: 'running' | 'completed' | 'failed';
  /** deliveries started: so far while running (null when just started, or when its workflow does not answer within 2 s), all of them once completed; null when failed */
  deliveries_started: number | null;
}

export interface WebhookReplayRequest {
  /** inclusive lower bound on the event timestamp */
  since: string;
  /** exclusive upper bound on the event timestamp */
  until: string;
  /** only these event names */
  events?: EventName[];
  /** only this subscription */
  subscription_id?: string;
}

export interface InboundWebhookAccepted {
  /** the X-Combo-Event-Id */
  event_id: string;
  /** true: this integration had already received this event id; nothing was started */
  duplicate: boolean;
  /** the inbound channel (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}` */
  source: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  /** the normalised event name (`push`, `pull_request.opened`, `message`, ...), `unknown` when the channel does not recognise the payload */
  event: string;
  project: string | null;
  actor: string | null;
  url: string | null;
  /** ISO 8601 UTC timestamp */
  received_at: string;
  /** one agent task per matching event trigger */
  tasks: Array<{
    trigger_id: string;
    workflow_id: string;
    /** false: the trigger already had its task for this event, or `error` says why none was started */
    started: boolean;
    /** why no task was started: an input of the trigger names a path this event lacks */
    error?: string;
  }>;
}

/** the sending system's JSON object, as it documents it */
export type InboundWebhookPayload = Record<string, unknown>;

export interface IntegrationWithSecret {
  /** integration id */
  integration_id: string;
  /** the inbound channel (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}` */
  channel: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  name: string;
  /** the URL to configure in the sending system: the inbound path with `?integration_id=`. For `generic`, replace `{trigger_id}` with the trigger's id. */
  webhook_url: string;
  /** last four characters of the current secret, to tell secrets apart */
  secret_last4: string;
  /** until when the secret replaced by the last rotation still verifies; null when it no longer does */
  previous_secret_valid_until: string | null;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
  /** the shared signing secret (HMAC key); shown only in this reply */
  secret: string;
}

export interface CreateIntegrationRequest {
  /** the inbound channel (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}` */
  channel: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  /** a label; defaults to the channel */
  name?: string;
}

export interface IntegrationPage {
  items: Integration[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface Integration {
  /** integration id */
  integration_id: string;
  /** the inbound channel (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}` */
  channel: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  name: string;
  /** the URL to configure in the sending system: the inbound path with `?integration_id=`. For `generic`, replace `{trigger_id}` with the trigger's id. */
  webhook_url: string;
  /** last four characters of the current secret, to tell secrets apart */
  secret_last4: string;
  /** until when the secret replaced by the last rotation still verifies; null when it no longer does */
  previous_secret_valid_until: string | null;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

export interface RotateIntegrationSecretRequest {
  /**
   * how long the previous secret keeps verifying, 0-604800 seconds (default 3600)
   * @default 3600
   */
  grace_seconds?: number;
}

export interface ModelProvider {
  /** model provider id */
  provider_id: string;
  name: string;
  kind: ModelProviderKind;
  /** null: the vendor's own API */
  base_url: string | null;
  /** last four characters of the key, to tell keys apart (`****` for a key under 12 characters, which would show most of it); null when there is none */
  api_key_last4: string | null;
  /** the names of the extra headers (their values are never shown) */
  header_names: string[];
  models: OfferedModel[];
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

/** the API the provider speaks: `openai`, `anthropic`, `google` (Gemini), or `openai-compatible` (the OpenAI chat completions API of Ollama, vLLM, LM Studio, LiteLLM and the like: `base_url` required) */
export type ModelProviderKind = 'openai' | 'anthropic' | 'google' | 'openai-compatible';

/** Every value of `ModelProviderKind`, in the document's order (for pickers and checks). */
export const ModelProviderKindValues = [
  'openai',
  'anthropic',
  'google',
  'openai-compatible',
] as const satisfies readonly ModelProviderKind[];

export interface OfferedModel {
  /** the model's name at the provider, as an agent's `model.model` names it */
  id: string;
  /** price per million tokens in the tenant's currency units (0-100000); absent: unknown */
  input_price_per_million?: number;
  /** price per million tokens in the tenant's currency units (0-100000); absent: unknown */
  output_price_per_million?: number;
}

export interface CreateModelProviderRequest {
  /** a label, unique in the tenant (10005 otherwise) */
  name: string;
  kind: ModelProviderKind;
  /** the API's base URL (http or https, no credentials), e.g. `http://ollama:11434/v1`. Required for `openai-compatible`; for the other kinds absent means the vendor's own API. Private, loopback and reserved addresses are refused (10001) unless the installation sets ALLOW_PRIVATE_URLS or lists the host in MODEL_PROVIDER_PRIVATE_HOSTS */
  base_url?: string;
  /** the key the provider is called with; stored encrypted and never shown again (only `api_key_last4`) */
  api_key?: string;
  /**
   * extra request headers sent on every call (an organization, a gateway's routing key), at most 16. Their values may be secrets: stored encrypted and never shown again (only `header_names`). Transport headers (Host, Content-Type, Content-Length, ...) are refused
   * @default {}
   */
  headers?: Record<string, string>;
  /** the models agents may use with this provider (1-100); the first is used by agents that name the provider and no model */
  models: OfferedModel[];
}

export interface ModelProviderPage {
  items: ModelProvider[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface UpdateModelProviderRequest {
  /** a label, unique in the tenant (10005 otherwise) */
  name?: string;
  kind?: ModelProviderKind;
  /** a new base URL; null removes it (not for `openai-compatible`) */
  base_url?: string | null;
  /** a new key (stored encrypted, never shown again); null removes it */
  api_key?: string | null;
  /** replaces every header; `{}` removes them all */
  headers?: Record<string, string>;
  /** the models agents may use with this provider (1-100); the first is used by agents that name the provider and no model */
  models?: OfferedModel[];
}

export interface ModelProviderCheck {
  ok: true;
  /** how long the call took, request to full answer */
  latency_ms: number;
  /** the model called */
  model: string;
}

export interface CheckModelProviderRequest {
  /** the offered model to call (10001 if the provider does not offer it); default: the provider's first */
  model?: string;
}

export interface CronJob {
  /** cron job id */
  cron_id: string;
  name: string;
  cron: string;
  timezone: string;
  /** agent id */
  agent_id: string;
  question: string;
  inputs: Record<string, string>;
  /** how the task opens its session and what it asks; GET /v1/event-trigger/templates lists them */
  session_template: 'default' | 'code-review' | 'import-requirements' | 'import-bugs';
  /** what happens when a run is due while the previous one is still going: `skip` it, `buffer_one` (run once after), `buffer_all` (run each after), `cancel_other` / `terminate_other` (stop the old one), `allow_all` (run side by side) */
  overlap: 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';
  paused: boolean;
  /** the Temporal Schedule behind the job */
  schedule_id: string;
  /** false when the Temporal Schedule was removed outside the service; delete the job then */
  schedule_exists: boolean;
  /** the next (up to) 5 due times; empty while paused */
  next_run_times: string[];
  /** the latest runs Temporal remembers (up to 10), oldest first */
  recent_runs: CronRun[];
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

export interface CronRun {
  workflow_id: string;
  run_id: string;
  /** the task's completion run (`GET /v1/combo/completions/{trace_id}`), recorded once the task has opened its session: until then, or when the task failed before, that answers 10004 */
  trace_id: string;
  /** time the run was due (the trigger time for a manual run) */
  scheduled_at: string;
  /** time the schedule started it */
  started_at: string;
  /** read for a single job; in lists only `running` is known (null otherwise); null also when Temporal no longer keeps the run. `canceled`: the run was cancelled (`POST /v1/combo/completions/{trace_id}/cancel`, or the task in the Temporal UI) */
  status: 'running' | 'paused' | 'completed' | 'failed' | 'canceled' | 'terminated' | 'timed_out' | 'continued_as_new' | null;
}

export interface CreateCronJobRequest {
  name: string;
  /** five fields: minute hour day-of-month month day-of-week, with `*`, values, ranges, steps, lists and JAN-DEC / SUN-SAT names. When both day-of-month and day-of-week are restricted, a run needs both to match (`0 9 1-7 * MON` is the first Monday). */
  cron: string;
  /**
   * IANA time zone the expression is read in
   * @default "UTC"
   */
  timezone?: string;
  /** agent that runs the task (must exist in the tenant: 10001 otherwise) */
  agent_id: string;
  /** what the agent is asked on every run */
  question: string;
  /**
   * input names (1-40 of a-z 0-9 _, starting with a letter; at most 20) and their values, handed to the session template
   * @default {}
   */
  inputs?: Record<string, string>;
  /**
   * how the task opens its session and what it asks; GET /v1/event-trigger/templates lists them
   * @default "default"
   */
  session_template?: 'default' | 'code-review' | 'import-requirements' | 'import-bugs';
  /**
   * what happens when a run is due while the previous one is still going: `skip` it, `buffer_one` (run once after), `buffer_all` (run each after), `cancel_other` / `terminate_other` (stop the old one), `allow_all` (run side by side)
   * @default "skip"
   */
  overlap?: 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';
  /**
   * create the job without running it until unpaused
   * @default false
   */
  paused?: boolean;
}

export interface CronJobPage {
  items: CronJob[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

/** The settings to change; those left out stay as they are. `inputs` replaces the whole map. Due times follow a new `cron` / `timezone` from now on; a run already going finishes as it started. */
export interface UpdateCronJobRequest {
  name?: string;
  /** five fields: minute hour day-of-month month day-of-week, with `*`, values, ranges, steps, lists and JAN-DEC / SUN-SAT names. When both day-of-month and day-of-week are restricted, a run needs both to match (`0 9 1-7 * MON` is the first Monday). */
  cron?: string;
  /** IANA time zone the expression is read in */
  timezone?: string;
  /** agent that runs the task (must exist in the tenant: 10001 otherwise) */
  agent_id?: string;
  /** what the agent is asked on every run */
  question?: string;
  /** input names (1-40 of a-z 0-9 _, starting with a letter; at most 20) and their values, handed to the session template */
  inputs?: Record<string, string>;
  /** how the task opens its session and what it asks; GET /v1/event-trigger/templates lists them */
  session_template?: 'default' | 'code-review' | 'import-requirements' | 'import-bugs';
  /** what happens when a run is due while the previous one is still going: `skip` it, `buffer_one` (run once after), `buffer_all` (run each after), `cancel_other` / `terminate_other` (stop the old one), `allow_all` (run side by side) */
  overlap?: 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';
  /** true stops the runs until set to false again */
  paused?: boolean;
}

export interface CronJobTriggered {
  /** cron job id */
  cron_id: string;
  /** ISO 8601 UTC timestamp */
  triggered_at: string;
}

export interface CronJobBackfill {
  /** cron job id */
  cron_id: string;
  /** ISO 8601 UTC timestamp */
  since: string;
  /** ISO 8601 UTC timestamp */
  until: string;
  /** what happens when a run is due while the previous one is still going: `skip` it, `buffer_one` (run once after), `buffer_all` (run each after), `cancel_other` / `terminate_other` (stop the old one), `allow_all` (run side by side) */
  overlap: 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';
  /** due times of the job's expression in [since, until), each started as a run (at most 1000) */
  runs: number;
  /** the earliest of those due times; null when there are none */
  first_run_at: string | null;
  /** the latest of those due times; null when there are none */
  last_run_at: string | null;
}

export interface BackfillCronJobRequest {
  /** inclusive lower bound: due times at or after it run */
  since: string;
  /** exclusive upper bound: due times before it run; not in the future (due times to come run on schedule) */
  until: string;
  /**
   * how the backfilled runs overlap one another and the job's own runs; default `buffer_all`: one after another, each of them runs (the job's `overlap` applies to its scheduled runs only)
   * @default "buffer_all"
   */
  overlap?: 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';
}

export interface SessionTemplateList {
  items: Array<{
    name: string;
    description: string;
    route: string;
  }>;
}

export interface EventTrigger {
  /** event trigger id */
  trigger_id: string;
  name: string;
  enabled: boolean;
  trigger: EventTriggerConfig;
  /** for `generic` triggers, the path external systems POST their events to; null for channel triggers */
  inbound_path: string | null;
  /** what is wrong with a trigger saved before it was checked (e.g. an input naming `{{ event.foo }}`, which fills as empty); empty when nothing is. Saving the trigger again requires fixing them. */
  problems: Array<{
    field: string;
    message: string;
  }>;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

export interface EventTriggerConfig {
  /** channel of the source system (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}` */
  source: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  /** only events received through this integration (of the tenant, on the `source` channel: 10001 otherwise); absent: events through every integration of the channel */
  integration_id?: string;
  match: {
    /** the normalised event name (`push`, `pull_request.opened`, `patchset-created`, `message`, ...), or `*` for every event of the source */
    event: string;
    /** RE2 regular expression searched for in the event's project (at most 500 characters). It runs on a linear-time engine, so no pattern can backtrack catastrophically; backreferences and lookaround are therefore not supported. An event without a project never matches a pattern. Absent: every project. */
    project_regex?: string;
  };
  action: {
    /** the agent to run (must exist in the tenant: 10001 otherwise) */
    agent_id: string;
    /** how the task opens its session and what it asks; GET /v1/event-trigger/templates lists them */
    session_template: 'default' | 'code-review' | 'import-requirements' | 'import-bugs';
    /**
     * Input names (1-40 of a-z 0-9 _, starting with a letter; at most 20) and their templates, filled from the normalised inbound event: `event_id`, `source`, `event`, `project`, `actor`, `url`, `received_at`, and `payload` (the body as sent) with any path below it (`payload.pull_request.labels.0.name`). Strings are filled as they are, numbers and booleans as text, objects as JSON, JSON null (and a null field such as `project`) as the empty string; a filled value is cut at 20 000 characters. When an event lacks a path an input names, the trigger starts no task for it: its entry in the inbound call's `tasks` has `started: false` and `error` naming the path.
     * @default {}
     */
    inputs?: Record<string, string>;
  };
}

export interface CreateEventTriggerRequest {
  name: string;
  /** @default true */
  enabled?: boolean;
  trigger: EventTriggerConfig;
}

export interface EventTriggerPreview {
  event: InboundEvent;
  /** whether the trigger matches the event: every condition passed */
  matches: boolean;
  /** every condition of the match, in the order it is checked */
  conditions: Array<{
    /** `enabled`; `source` (the channel); `integration` (a trigger naming one hears only events through it); `event` (`match.event` or `*`); `project_regex` (found in the project; an event without one never matches a pattern) */
    condition: 'enabled' | 'source' | 'integration' | 'event' | 'project_regex';
    passed: boolean;
    /** why, in words */
    detail: string;
  }>;
  /** the agent task the trigger would start for this event (filled whether it matches or not); null when `error` says why none */
  task: {
    agent_id: string;
    session_template: 'default' | 'code-review' | 'import-requirements' | 'import-bugs';
    /** the inputs filled from the event */
    inputs: Record<string, string>;
    /** what the task would ask the agent (the session template's question) */
    question: string;
  } | null;
  /** why no task would start though the trigger matched: an input names a path the event lacks, in the inbound reply's words (`tasks[].error`) */
  error: string | null;
  /** matches and no error: a real inbound call would start the task */
  would_start: boolean;
}

/** An inbound event as the channel normalises it: what triggers match on and fill their inputs from (`{{ event.<path> }}`). In a preview, the sample normalised exactly as an inbound call on the channel would be. */
export interface InboundEvent {
  event_id: string;
  /** channel of the source system (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}` */
  source: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  /** the normalised event name; `unknown` when the channel does not recognise the payload */
  event: string;
  project: string | null;
  actor: string | null;
  url: string | null;
  /** ISO 8601 UTC timestamp */
  received_at: string;
  /** the body as sent */
  payload: Record<string, unknown>;
}

export interface EventTriggerPreviewRequest {
  /** the channel the sample arrives on, as triggers name it (`/v1/webhook/{channel}`, or `generic`); default: the trigger's `source` */
  source?: 'workchat-a' | 'workchat-b' | 'review-a' | 'git-a' | 'git-b' | 'git-c' | 'generic';
  trigger: EventTriggerConfig;
  /**
   * as the trigger would be saved; a disabled trigger matches nothing
   * @default true
   */
  enabled?: boolean;
  /** the sample body as the sending system would POST it (a JSON object); the whole request is bounded like an inbound body (MAX_JSON_BODY_BYTES, nested at most 64 levels) */
  payload: Record<string, unknown>;
  /**
   * headers of the sample, for channels that take the event from one: `X-GitHub-Event` (git-b), `X-Gitea-Event` (git-c); names in any case
   * @default {}
   */
  headers?: Record<string, string>;
  /**
   * the X-Combo-Event-Id of the sample (`{{ event.event_id }}`); default `evt_preview`
   * @default "evt_preview"
   */
  event_id?: string;
  /** the integration the sample is taken to arrive through (of the tenant, on the sample's channel: 10001 otherwise); default: the trigger's `integration_id`, so a trigger that names one is checked as if the sample came through it */
  integration_id?: string;
}

export interface EventTriggerPage {
  items: EventTrigger[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface UpdateEventTriggerRequest {
  name?: string;
  enabled?: boolean;
  trigger?: EventTriggerConfig;
}

export interface ParserList {
  items: Array<{
    parser_id: string;
    description: string;
  }>;
}

export interface EmbeddingModelList {
  default: string;
  items: Array<{
    model: string;
    dimension: number | null;
  }>;
}

export interface KnowledgeBase {
  /** knowledge base id */
  kb_id: string;
  name: string;
  description: string;
  embedding_model: string;
  /** vector size of embedding_model, recorded at creation */
  dimension: number;
  parser_id: string;
  chunk_tokens: number;
  overlap_tokens: number;
  metadata: Record<string, string>;
  document_count: number;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

export interface CreateKnowledgeBaseRequest {
  name: string;
  /** @default "" */
  description?: string;
  /** one of GET /v1/kb/embedding-models; the installation default when absent. Fixed once created. */
  embedding_model?: string;
  /**
   * parser of uploads that name none
   * @default "naive"
   */
  parser_id?: string;
  /**
   * largest chunk, in cl100k tokens (64-4096)
   * @default 512
   */
  chunk_tokens?: number;
  /**
   * tokens repeated between neighbouring chunks by splitting parsers (0-1024, below chunk_tokens)
   * @default 64
   */
  overlap_tokens?: number;
  /**
   * Free-form string labels (at most 32 keys, values up to 1000 characters)
   * @default {}
   */
  metadata?: Record<string, string>;
}

export interface KnowledgeBasePage {
  items: KnowledgeBase[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

/** Chunking changes apply to documents uploaded afterwards. */
export interface UpdateKnowledgeBaseRequest {
  name?: string;
  description?: string;
  /** chunking parser; GET /v1/kb/parsers lists them */
  parser_id?: string;
  /** largest chunk, in cl100k tokens (64-4096) */
  chunk_tokens?: number;
  /** tokens repeated between neighbouring chunks by splitting parsers (0-1024, below chunk_tokens) */
  overlap_tokens?: number;
  /** Free-form string labels (at most 32 keys, values up to 1000 characters) */
  metadata?: Record<string, string>;
}

export interface DocumentPage {
  items: Document[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface Document {
  /** document id */
  doc_id: string;
  /** knowledge base id */
  kb_id: string;
  /** the uploaded file name */
  name: string;
  content_type: string;
  /** detected format (text, markdown, html, pdf, docx, csv, xlsx, json) */
  format: string | null;
  size_bytes: number;
  parser_id: string;
  status: DocumentStatus;
  /** chunks searchable so far (during a reparse, and after one that failed, the previous parse's, which answer until a parse succeeds) */
  chunk_count: number;
  /** which parse `status` and `progress` describe: 1 for the upload's, one more for every reparse */
  parse: number;
  error: DocumentFailure;
  progress: DocumentProgress;
  /** ISO 8601 UTC timestamp */
  created_at: string;
  /** ISO 8601 UTC timestamp */
  updated_at: string;
}

/** `parsing` from upload until the chunks are searchable; then `ready`, or `failed` with `error`. */
export type DocumentStatus = 'parsing' | 'ready' | 'failed';

/** Every value of `DocumentStatus`, in the document's order (for pickers and checks). */
export const DocumentStatusValues = ['parsing', 'ready', 'failed'] as const satisfies readonly DocumentStatus[];

export type DocumentFailure = {
  /** `unsupported`: not one of the supported formats (or its parser was removed); `encrypted`: password-protected; `corrupt`: the file cannot be read, or its extraction and splitting ran over the time limit (PARSE_TIMEOUT_MS); `too_large`: a DOCX or XLSX that unpacks past ZIP_MAX_UNCOMPRESSED_BYTES or ZIP_MAX_COMPRESSION_RATIO (a zip bomb), or a file whose extraction needs more memory than a parsing thread has (PARSE_THREAD_MEMORY_MB); `empty`: no text to index; `embedding_failed`: the embedding model refused the chunks or is not configured; `indexing_failed`: the index, the database or the embedding upstream stayed unavailable through every retry; `timed_out`: still being parsed after DOCUMENT_INGEST_TIMEOUT_MS. */
  reason: 'unsupported' | 'encrypted' | 'corrupt' | 'empty' | 'too_large' | 'embedding_failed' | 'indexing_failed' | 'timed_out';
  /** What went wrong, fit to show the uploader. */
  message: string;
} | null;

/** Written as the parse goes once it has run for a second; a shorter parse records it all with its outcome. */
export interface DocumentProgress {
  stage: 'queued' | 'extracting' | 'embedding' | 'done' | 'failed';
  /** share of the work done, 0 to 1 */
  fraction: number;
  /** chunks the parser produced; null until split */
  chunks_total: number | null;
  chunks_indexed: number;
  /** tokens over all chunks (cl100k) */
  token_count: number;
  /** ISO 8601 UTC timestamp */
  started_at: string | null;
  /** ISO 8601 UTC timestamp */
  finished_at: string | null;
}

export interface UploadDocumentRequest {
  /** knowledge base id */
  kb_id: string;
  /** parser for this document; the knowledge base's parser_id when absent */
  parser_id?: string;
  /** the document (text, Markdown, HTML, PDF, DOCX, CSV, XLSX or JSON) */
  file: Uploadable;
}

export interface DocumentChunkPage {
  items: DocumentChunk[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface DocumentChunk {
  /** the id search answers with (`SearchedChunk.chunk_id`) */
  chunk_id: string;
  /** 0-based order of the chunk in its document; the list is ordered by it */
  position: number;
  /** the chunk text as indexed: what search matches, quotes and gives the model */
  content: string;
  /** headings (or structural labels such as `Article 3`, `Claim 2`) from the document root down to the chunk; empty when none */
  section_path: string[];
  /** the parser's role for the chunk (`abstract`, `claim`, `reference`, `qa`, `row`, ...); null when none */
  role: string | null;
  /** page (PDF) or sheet (XLSX) the chunk starts on, 1-based; null for formats without pages */
  page: number | null;
  /** tokens of `content` (cl100k) */
  tokens: number;
  /** the document's parse that wrote the chunk (1: the upload's) */
  parse: number;
}

export interface ReparseDocumentRequest {
  /** parser for the new parse; the document's own parser_id when absent */
  parser_id?: string;
}

export interface ChunkSearchResult {
  chunks: SearchedChunk[];
  /** candidates at or above similarity_threshold (before top_k) */
  total: number;
  /** candidates per document, most first */
  doc_aggs: Array<{
    /** document id */
    doc_id: string;
    doc_name: string;
    count: number;
  }>;
  embedding_model: string;
  reranker: string | null;
}

export interface SearchedChunk {
  chunk_id: string;
  content: string;
  /** document id */
  doc_id: string;
  doc_name: string;
  /** knowledge base id */
  kb_id: string;
  /** 0-based order of the chunk in its document */
  position: number;
  section_path: string[];
  role: string | null;
  page: number | null;
  /** combined: (wv·vector + wk·term) / (wv + wk) */
  similarity: number;
  /** cosine similarity of question and chunk, clamped to 0-1 */
  vector_similarity: number;
  /** BM25 score relative to the best BM25 score among the candidates, 0-1 */
  term_similarity: number;
  /** reranker score, 0-1; null when the chunk was not re-scored */
  rerank_score: number | null;
  /** the content (or, when only its headings matched, the section path) with matched terms in <em> */
  highlight: string | null;
}

export interface ChunkSearchRequest {
  question: string;
  kb_ids: string[];
  /** restrict the search to these documents of the knowledge bases */
  doc_ids?: string[];
  /**
   * chunks returned (1-100, default 8)
   * @default 8
   */
  top_k?: number;
  /**
   * chunks whose combined similarity is below this are dropped (0-1, default 0.2)
   * @default 0.2
   */
  similarity_threshold?: number;
  /** weight of the vector (cosine) part, 0-1; default 0.7, or 1 - keyword_weight when only that is given */
  vector_similarity_weight?: number;
  /** weight of the term (BM25) part, 0-1; default 0.3, or 1 - vector_similarity_weight when only that is given */
  keyword_weight?: number;
  /**
   * best candidates (by combined similarity) re-scored by the reranker; they lead the order by the mean of similarity and rerank_score, then top_k are taken; 0 turns reranking off (0-200, default 10)
   * @default 10
   */
  rerank_top_n?: number;
  /**
   * return matched terms wrapped in <em>
   * @default true
   */
  highlight?: boolean;
}

export interface SkillPage {
  items: Skill[];
  /** number of items across all pages; on page-number requests (absent with `after`, or with `include_total=false`) */
  total?: number;
  page: number;
  page_size: number;
  /** pass as `after` for the page after this one; null on the last page */
  next_cursor: string | null;
}

export interface Skill {
  /** skill id */
  skill_id: string;
  name: string;
  version: string;
  description: string;
  instructions: string;
  tools: SkillTool[];
  /** ISO 8601 UTC timestamp */
  created_at: string;
}

export interface SkillTool {
  name: string;
  /** what the tool does, for the model */
  description: string;
  /** JSON Schema (draft-07) of the arguments, `type: "object"`, self-contained (no `$id`; `$ref` only within it), at most 16384 characters. Shown to the model as is; every call's arguments are validated against it. */
  parameters: Record<string, unknown>;
  http: SkillToolHttp;
}

/** The request one call makes. GET and DELETE put the arguments in the query string (strings, numbers and booleans as they are, arrays as repeated parameters, objects as JSON text, nulls left out); the other methods send them as a JSON body. A 2xx answer is the tool result (JSON parsed; other content as `{text}`; at most 64 KiB); any other status, a refused address or a network failure is reported to the model as the tool result. */
export interface SkillToolHttp {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** http(s) URL without credentials. Private, loopback and reserved addresses are refused at install and at every call unless the installation sets ALLOW_PRIVATE_URLS. Redirects are not followed. */
  url: string;
  /**
   * Fixed, non-secret request headers, stored and shown back as given. Names that carry credentials (Authorization, Cookie, anything with auth, token, secret, password, api-key or signature) and transport headers (Host, Content-Type, Content-Length, ...) are refused.
   * @default {}
   */
  headers?: Record<string, string>;
  /**
   * whole request, 100-30000 ms; default 10000
   * @default 10000
   */
  timeout_ms?: number;
}

/** The manifest is wrapped in `manifest`. A tenant installs each name+version once (again: 10005); another version of the same name is a separate skill. */
export interface InstallSkillRequest {
  manifest: SkillManifest;
}

export interface SkillManifest {
  /** slug naming the skill; the tools the model sees are called `<name>__<tool name>` */
  name: string;
  /** semantic version `x.y.z`; a tenant installs one name+version once */
  version: string;
  /** @default "" */
  description?: string;
  /**
   * added to the agent's system prompt on sessions where the skill is active
   * @default ""
   */
  instructions?: string;
  /**
   * at most 16 tools, names unique within the skill
   * @default []
   */
  tools?: SkillTool[];
}

export interface SkillActivation {
  /** session id */
  session_id: string;
  /** skill id */
  skill_id: string;
  /** every skill active on the session, in activation order */
  active_skill_ids: string[];
}

/** an active session of the tenant (archived: 10005) */
export interface ActivateSkillRequest {
  /** session id (`ses_…`; one that names nothing: 10004) */
  session_id: string;
}

export interface File {
  /** attachment file id (POST /v1/files) */
  file_id: string;
  /** the uploaded file name */
  name: string;
  content_type: string;
  /** detected format (text, markdown, html, pdf, docx, csv, xlsx, json) */
  format: string;
  size_bytes: number;
  /** tokens of the kept text (cl100k) */
  token_count: number;
  /** the extracted text was longer than 2097152 bytes (UTF-8) and was cut there */
  truncated: boolean;
  /** the first 200 characters of the extracted text */
  text_preview: string;
  /** ISO 8601 UTC timestamp */
  created_at: string;
}

export interface UploadFileRequest {
  /** the file (text, Markdown, HTML, PDF, DOCX, CSV, XLSX or JSON) */
  file: Uploadable;
}

/** The period summary (`CostSummary`, unchanged); with `group_by`, also the costs of a range by agent or by day. */
export interface CostReport {
  /** UTC calendar month, `YYYY-MM` */
  period: string;
  /** tokens of the completion runs recorded in the period */
  tokens: number;
  /** summed run durations */
  duration_ms: number;
  /** completion runs recorded in the period */
  runs: number;
  /** prompt tokens of the period's runs (`cost.input_tokens`); runs recorded before the split was kept add 0 */
  input_tokens: number;
  /** generated tokens of the period's runs (`cost.output_tokens`); runs recorded before the split was kept add 0 */
  output_tokens: number;
  /** money of the period's runs at their models' prices (`cost.amount`), in the currency of those prices, rounded to 6 decimal places; runs without a price, and runs recorded before amounts were kept, add 0 */
  amount: number;
  /** the tenant's threshold per period in tokens; null when there is none */
  threshold_tokens: number | null;
  /** `tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_TOKENS); `none`: no threshold */
  threshold_source: 'tenant' | 'default' | 'none';
  /** the tenant's threshold per period in money (the prices' currency); null when there is none */
  threshold_amount: number | null;
  /** `tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_AMOUNT); `none`: no money threshold */
  threshold_amount_source: 'tenant' | 'default' | 'none';
  /** tokens >= threshold_tokens, or amount >= threshold_amount: either threshold reached */
  threshold_exceeded: boolean;
  /** present when asked for: how `groups` are grouped */
  group_by?: 'agent' | 'day';
  /** with group_by: the start of the range the groups cover (inclusive) */
  since?: string;
  /** with group_by: the end of the range the groups cover (exclusive) */
  until?: string;
  /** with group_by: the runs that ended in [since, until), summed per agent (`CostGroupByAgent`, most tokens first) or per UTC day (`CostGroupByDay`, oldest first, days without runs left out); independent of `period` */
  groups?: Array<CostGroupByAgent | CostGroupByDay>;
}

export interface CostGroupByAgent {
  /** the agent that ran; null for runs recorded before costs kept their agent (and of no agent known now) */
  agent_id: string | null;
  /** tokens of the runs in the group (as `cost.tokens` of each run: prompt and completion together) */
  tokens: number;
  /** summed run durations */
  duration_ms: number;
  /** completion runs in the group */
  runs: number;
  /** the runs' prompt tokens (`cost.input_tokens`); runs recorded before the split add 0 */
  input_tokens: number;
  /** the runs' generated tokens (`cost.output_tokens`); runs recorded before the split add 0 */
  output_tokens: number;
  /** the runs' money (`cost.amount`), rounded to 6 decimal places; runs without a price, and runs recorded before amounts, add 0 */
  amount: number;
}

export interface CostGroupByDay {
  /** the UTC day the runs ended, `YYYY-MM-DD` */
  day: string;
  /** tokens of the runs in the group (as `cost.tokens` of each run: prompt and completion together) */
  tokens: number;
  /** summed run durations */
  duration_ms: number;
  /** completion runs in the group */
  runs: number;
  /** the runs' prompt tokens (`cost.input_tokens`); runs recorded before the split add 0 */
  input_tokens: number;
  /** the runs' generated tokens (`cost.output_tokens`); runs recorded before the split add 0 */
  output_tokens: number;
  /** the runs' money (`cost.amount`), rounded to 6 decimal places; runs without a price, and runs recorded before amounts, add 0 */
  amount: number;
}

export interface CostSummary {
  /** UTC calendar month, `YYYY-MM` */
  period: string;
  /** tokens of the completion runs recorded in the period */
  tokens: number;
  /** summed run durations */
  duration_ms: number;
  /** completion runs recorded in the period */
  runs: number;
  /** prompt tokens of the period's runs (`cost.input_tokens`); runs recorded before the split was kept add 0 */
  input_tokens: number;
  /** generated tokens of the period's runs (`cost.output_tokens`); runs recorded before the split was kept add 0 */
  output_tokens: number;
  /** money of the period's runs at their models' prices (`cost.amount`), in the currency of those prices, rounded to 6 decimal places; runs without a price, and runs recorded before amounts were kept, add 0 */
  amount: number;
  /** the tenant's threshold per period in tokens; null when there is none */
  threshold_tokens: number | null;
  /** `tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_TOKENS); `none`: no threshold */
  threshold_source: 'tenant' | 'default' | 'none';
  /** the tenant's threshold per period in money (the prices' currency); null when there is none */
  threshold_amount: number | null;
  /** `tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_AMOUNT); `none`: no money threshold */
  threshold_amount_source: 'tenant' | 'default' | 'none';
  /** tokens >= threshold_tokens, or amount >= threshold_amount: either threshold reached */
  threshold_exceeded: boolean;
}

export interface SetCostThresholdRequest {
  /** tokens per period (at least 1); null turns the threshold off for the tenant, overriding the installation default; left out: the token threshold stays as it is */
  threshold_tokens?: number | null;
  /** money per period (above 0), in the currency of the models' prices; null turns the money threshold off for the tenant, overriding the installation default; left out: the money threshold stays as it is */
  threshold_amount?: number | null;
}

/** Temporal's remote codec body: `{payloads: [{metadata: {key: base64}, data: base64}]}`, as the Temporal UI and CLI send it */
export interface TemporalPayloads {
  payloads: TemporalPayload[];
}

export interface TemporalPayload {
  /** @default {} */
  metadata?: Record<string, string>;
  /** @default "" */
  data?: string;
}

export interface Health {
  status: 'ok';
  uptime_s: number;
}

export interface Readiness {
  status: 'ready';
  checks: Record<
    string,
    {
      ok: boolean;
      latency_ms: number;
      error?: string;
    }
  >;
}
