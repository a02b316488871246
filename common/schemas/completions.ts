import { z } from 'zod';
import { isoDate, referenceTo, resourceId } from './common';
import { docId } from './knowledge';
import { routeString } from './routes';
import { sessionId } from './sessions';

export const traceId = resourceId('trc', 'trace id of one completion run');

export const completionBody = z
  .object({
    session_id: referenceTo('ses', 'an active session of this agent (create it first)'),
    question: z.string().trim().min(1).max(32_000).meta({ description: 'the user message' }),
    stream: z.boolean().default(false).meta({ description: '`true`: a text/event-stream reply (see the description)' }),
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

const stopReason = z.enum(['answered', 'step_limit', 'token_limit']).meta({
  id: 'StopReason',
  description: '`step_limit` / `token_limit`: the run hit COMPLETION_MAX_STEPS / COMPLETION_MAX_TOKENS and answers with what it has',
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

export const completionRun = z
  .object({
    session_id: sessionId,
    trace_id: traceId,
    route: z.string().meta({ description: 'the route the run took' }),
    agent_id: z.string(),
    status: z.enum(['running', 'completed', 'failed']),
    answer: z.string().nullable().meta({ description: 'Markdown; null until completed' }),
    reference: z.array(reference),
    cost: orNull(cost),
    model: z.string().nullable(),
    offline: z.boolean(),
    stop_reason: orNull(stopReason),
    artifacts: z.array(z.record(z.string(), z.unknown())),
    error: z.object({ code: z.number().int(), message: z.string() }).nullable(),
    created_at: isoDate,
    finished_at: isoDate.nullable(),
  })
  .meta({ id: 'CompletionRun' });

export const runAccepted = z
  .object({
    trace_id: traceId,
    session_id: sessionId,
    status: z.enum(['running']).meta({ description: 'the run goes on; later releases may add `queued` and `waiting_approval`' }),
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
      'HTTP 202, code 0: the run is accepted and goes on, but did not answer within COMPLETION_REPLY_WAIT_MS; follow it with `links.self`.',
  });

export const completionParams = z.object({ agent_id: resourceId('agt', 'agent id') }).strict();
export const traceParams = z.object({ trace_id: traceId }).strict();

export type CompletionBody = z.infer<typeof completionBody>;
export type CompletionReply = z.infer<typeof completionReply>;
export type Reference = z.infer<typeof reference>;
export type Cost = z.infer<typeof cost>;
export type StopReason = z.infer<typeof stopReason>;
export type CompletionRun = z.infer<typeof completionRun>;
export type RunAccepted = z.infer<typeof runAccepted>;
