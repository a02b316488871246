import { z } from 'zod';
import { multitaskStrategy } from './agents';
import { isoDate, pageOf, pageQuery, referenceTo, resourceId } from './common';
import { docId } from './knowledge';
import { routeString } from './routes';
import { sessionId } from './sessions';

/** How a stream's `message` events carry the answer: the whole text so far, or only what is new. */
export const STREAM_FORMATS = ['answer', 'delta'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

export const traceId = resourceId('trc', 'trace id of one completion run');

export const completionBody = z
  .object({
    session_id: referenceTo('ses', 'an active session of this agent (create it first)'),
    question: z.string().trim().min(1).max(32_000).meta({ description: 'the user message' }),
    stream: z.boolean().default(false).meta({ description: '`true`: a text/event-stream reply (see the description)' }),
    stream_format: z.enum(STREAM_FORMATS).default('answer').meta({
      description:
        'how `message` events carry the answer: `answer` (default), the whole answer so far in every one; `delta`, only the new text (`delta`), the last `message` before `done` carrying the whole `answer`. Also a query parameter of GET …/events',
    }),
    background: z.boolean().default(false).meta({
      description:
        '`true`: answer at once with HTTP 202 `RunAccepted` (not with `stream`); the run goes on whatever the client does, and is followed with its links',
    }),
    multitask_strategy: multitaskStrategy.optional().meta({
      description: "when the session already has a run going; default: the agent's `multitask_strategy` (`reject` unless set)",
    }),
    route: routeString.optional().meta({
      description: "`@scenario@processor@mode@` (GET /v1/combo/scenarios); default: the agent's default_route, else `@chat@llm@default@`",
    }),
    attachments: z
      .array(referenceTo('fil', 'attachment file id'))
      .max(10)
      .default([])
      .meta({ description: 'files uploaded with POST /v1/files whose text the run reads (at most 10)' }),
    context_ids: z
      .array(referenceTo('doc', 'document id'))
      .max(64)
      .default([])
      .meta({ description: "knowledge-base documents retrieval is restricted to (documents of the agent's knowledge bases)" }),
  })
  .strict()
  .meta({ id: 'CompletionRequest' });

export const cost = z
  .object({
    tokens: z.number().int().meta({ description: 'prompt + generated tokens of every model call of the run' }),
    duration_ms: z.number().int().meta({ description: 'from the request to the recorded answer' }),
    input_tokens: z
      .number()
      .int()
      .optional()
      .meta({ description: 'prompt tokens of every model call of the run; absent on runs recorded before the split was kept' }),
    output_tokens: z
      .number()
      .int()
      .optional()
      .meta({ description: 'generated tokens of every model call of the run; absent on runs recorded before the split was kept' }),
    amount: z
      .number()
      .nullable()
      .optional()
      .meta({
        description:
          "what the run's model calls cost at the prices configured for their models (per million input and output tokens, in " +
          'the currency of those prices), rounded to 6 decimal places; calls of a model without a price add nothing. null: no ' +
          'call of the run had a price; absent on runs recorded before amounts were kept',
      }),
  })
  .meta({ id: 'Cost' });

export const reference = z
  .object({
    index: z.number().int().meta({ description: 'the [n] the answer cites' }),
    chunk_id: z.string(),
    doc_id: docId,
    doc_name: z.string(),
    kb_id: z.string(),
    content: z.string(),
    similarity: z.number(),
  })
  .meta({ id: 'Reference' });

export const STOP_REASONS = ['answered', 'step_limit', 'token_limit', 'canceled'] as const;
const stopReason = z.enum(STOP_REASONS).meta({
  id: 'StopReason',
  description:
    "`step_limit` / `token_limit`: the run hit COMPLETION_MAX_STEPS / COMPLETION_MAX_TOKENS and answers with what it has; `canceled`: the run was cancelled (POST …/cancel, or a later run's `interrupt` / `rollback`) and `answer` is what it had written by then",
});

export const completionReply = z
  .object({
    session_id: sessionId,
    answer: z.string().meta({ description: 'Markdown' }),
    reference: z.array(reference),
    trace_id: traceId,
    cost,
    route: z.string().meta({ description: 'the route the run took' }),
    model: z.string().nullable().meta({ description: 'the model that answered; null when no language model was used' }),
    offline: z
      .boolean()
      .meta({ description: 'true: no language model is configured; the answer quotes knowledge-base passages and says so' }),
    stop_reason: stopReason,
    artifacts: z
      .array(z.record(z.string(), z.unknown()))
      .meta({ description: 'what the run produced besides the answer (review report, imported items)' }),
  })
  .meta({ id: 'CompletionReply' });

// Nullable components are `anyOf [component, null]`: `.nullable()` on a component gives an
// `allOf` that allows no null and that client generators refuse.
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const RUN_STATUSES = ['queued', 'running', 'waiting_approval', 'completed', 'failed', 'canceled'] as const;
const runStatus = z.enum(RUN_STATUSES).meta({
  id: 'RunStatus',
  description:
    '`queued`: waiting for an earlier run of its session (`enqueue`); `running`; `waiting_approval`: a tool call waits for a person; then `completed`, `failed` or `canceled`',
});
const RUN_KINDS = ['chat', 'trigger', 'cron'] as const;
const runKind = z.enum(RUN_KINDS).meta({
  id: 'RunKind',
  description: '`chat`: a completion asked through the API; `trigger`: started by an event trigger; `cron`: started by a cron job',
});

export const approvalId = resourceId('apr', 'approval id of one tool call waiting for a person');

const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'timed_out', 'canceled'] as const;
const approvalStatus = z.enum(APPROVAL_STATUSES).meta({
  id: 'ApprovalStatus',
  description:
    '`pending`: waiting for a decision; `approved` (the tool ran); `rejected` (the model was told and went on); `timed_out`: no decision within `timeout_s`, counted as rejected; `canceled`: the run ended (cancelled, failed) before a decision',
});

const toolApproval = z
  .object({
    approval_id: approvalId,
    tool: z.string().meta({ description: 'the tool as the model called it (`<skill>__<tool>` for a skill tool)' }),
    arguments: z.record(z.string(), z.unknown()).meta({ description: 'the arguments the model gave: what the tool would run with' }),
    step: z.number().int().meta({ description: 'the model call of the run that asked for it, from 1' }),
    status: approvalStatus,
    comment: z.string().nullable().meta({ description: "the decider's comment (given to the model with a rejection)" }),
    decided_by: z
      .string()
      .nullable()
      .meta({ description: 'who decided: `api_key:<key id>` or `user:<console user>`; null when pending or timed out' }),
    requested_at: isoDate,
    expires_at: isoDate.meta({ description: 'when it counts as rejected if nobody decides' }),
    decided_at: isoDate.nullable(),
  })
  .meta({ id: 'ToolApproval', description: "A tool call waiting for (or given) a person's decision" });

export const completionRun = z
  .object({
    session_id: sessionId,
    trace_id: traceId,
    kind: runKind,
    route: z.string().meta({ description: 'the route the run took' }),
    agent_id: z.string(),
    status: runStatus,
    workflow_id: z
      .string()
      .meta({ description: "the run's Temporal workflow id (`completion-<trace_id>`; older runs: `completion-<session_id>`)" }),
    run_id: z.string().nullable().meta({
      description:
        'its Temporal run id; null while queued; for a running run, in lists, null until its end is recorded (GET of the run reads it from Temporal)',
    }),
    question: z
      .string()
      .nullable()
      .meta({
        description:
          "what was asked: the completion's `question`, or the question an agent task's template built (its first 32,000 characters); " +
          'null on runs recorded before runs kept their question',
      }),
    answer: z.string().nullable().meta({ description: 'Markdown; null until completed' }),
    reference: z.array(reference),
    cost: orNull(cost),
    model: z.string().nullable(),
    offline: z.boolean(),
    stop_reason: orNull(stopReason),
    artifacts: z.array(z.record(z.string(), z.unknown())),
    error: z.object({ code: z.number().int(), message: z.string() }).nullable(),
    created_at: isoDate,
    started_at: isoDate.nullable().meta({ description: 'when its workflow started (later than created_at for a queued run)' }),
    finished_at: isoDate.nullable(),
    approvals: z.array(toolApproval).meta({ description: "the run's tool calls that needed a person's approval, oldest first" }),
    requested_by: z
      .string()
      .nullable()
      .meta({
        description:
          "the person who asked for the run (the API key's owner, or the console user): under the agent's `approval.separate_duties` they may not decide its tool calls; " +
          'null for trigger and cron runs (under separate duties only admins decide those) and for runs recorded before this was kept',
      }),
    temporal_ui_url: z.string().nullable().meta({
      description:
        "the run's workflows in the Temporal UI (found by its TraceId search attribute); null when the service has no TEMPORAL_UI_URL",
    }),
  })
  .meta({ id: 'CompletionRun' });

export const completionRunPage = pageOf(completionRun, 'CompletionRunPage');

export const runListQuery = pageQuery
  .extend({
    status: runStatus.optional(),
    kind: runKind.optional(),
    since: z.iso.datetime({ offset: true }).optional().meta({ description: 'runs created at or after this time' }),
    until: z.iso.datetime({ offset: true }).optional().meta({ description: 'runs created before this time' }),
  })
  .strict();

export const runAccepted = z
  .object({
    trace_id: traceId,
    session_id: sessionId,
    status: z.enum(['running', 'queued', 'waiting_approval']).meta({ description: 'where the run is now; it goes on' }),
    links: z.object({
      self: z.string().meta({
        description: "GET it for the run's status and, once ended, its result",
        example: '/v1/combo/completions/trc_8a3XbQv2mK0pLr7sTu9w',
      }),
      events: z.string().meta({
        description: 'its event stream (text/event-stream), from the start or after Last-Event-ID',
        example: '/v1/combo/completions/trc_8a3XbQv2mK0pLr7sTu9w/events',
      }),
    }),
  })
  .meta({
    id: 'RunAccepted',
    description:
      'HTTP 202, code 0: the run is accepted and goes on (a `background` request, or one that did not answer within COMPLETION_REPLY_WAIT_MS); follow it with `links.self`.',
  });

export const approvalDecisionBody = z
  .object({
    decision: z.enum(['approve', 'reject']),
    comment: z.string().trim().max(2000).optional().meta({ description: 'kept with the decision; a rejection passes it to the model' }),
  })
  .strict()
  .meta({ id: 'ApprovalDecisionRequest' });

export const approvalDecision = z
  .object({
    trace_id: traceId,
    approval: toolApproval,
    applied: z.boolean().meta({
      description: 'true: this request decided it; false: it had been decided the same way before (a repeated request)',
    }),
  })
  .meta({ id: 'ApprovalDecision' });

export const approvalParams = z.object({ trace_id: traceId, approval_id: approvalId }).strict();

export const completionParams = z.object({ agent_id: resourceId('agt', 'agent id') }).strict();
export const traceParams = z.object({ trace_id: traceId }).strict();

export type CompletionBody = z.infer<typeof completionBody>;
export type CompletionReply = z.infer<typeof completionReply>;
export type Reference = z.infer<typeof reference>;
export type Cost = z.infer<typeof cost>;
export type StopReason = z.infer<typeof stopReason>;
export type CompletionRun = z.infer<typeof completionRun>;
export type RunStatus = z.infer<typeof runStatus>;
export type RunKind = z.infer<typeof runKind>;
export type RunListQuery = z.infer<typeof runListQuery>;
export type RunAccepted = z.infer<typeof runAccepted>;
export type ToolApproval = z.infer<typeof toolApproval>;
export type ApprovalDecisionBody = z.infer<typeof approvalDecisionBody>;
export type ApprovalDecision = z.infer<typeof approvalDecision>;
