import { z } from 'zod';
import { invalid } from '../../common/errors';
import { agentParams } from '../../common/schemas/agents';
import {
  approvalDecision,
  approvalDecisionBody,
  approvalParams,
  completionBody,
  completionParams,
  completionReply,
  completionRun,
  completionRunPage,
  runAccepted,
  runListQuery,
  STREAM_FORMATS,
  traceParams,
} from '../../common/schemas/completions';
import { sessionParams } from '../../common/schemas/sessions';
import { completionEventStream } from '../../common/schemas/stream-events';
import { parseStreamEventId } from '../../stores/run-events';
import { callerOf } from '../auth';
import type { AppContext } from '../context';
import { answerAccepted, defineRoute, STREAMED } from '../route';
import { type EventStreamDeps, streamRunEvents } from '../run-event-stream';
import type { Services } from '../services';

const tag = 'Completions';

const STREAM_DESCRIPTION = `
With \`stream: true\` the reply is \`text/event-stream\`. Every event has an \`id:\` (\`<trace_id>:<n>\`, n counting from 0), an \`event:\` name and one \`data:\` line of JSON:

| event | data |
|---|---|
| \`thinking\` | \`phase\`: \`accepted\` (first event; also \`trace_id\`, \`route\`), \`retrieval\`, \`model\` (\`step\`, \`attempt\`), \`model_retry\` (a model call is being retried after an upstream failure) |
| \`approval_required\` | \`approval_id\`, \`tool\`, \`args\`, \`step\`, \`expires_at\`: the call waits for a person's decision (the agent's \`approval\`; POST …/approvals/{approval_id}) |
| \`approval_decided\` | \`approval_id\`, \`tool\`, \`status\` (\`approved\`: the tool runs; \`rejected\` or \`timed_out\`: the model is told it did not), \`comment\` |
| \`tool_call\` | \`tool\`, \`args\` |
| \`tool_result\` | \`tool\`, \`result\` (a failed tool gives \`{ "error": "..." }\`; the model reads it and goes on) |
| \`message\` | \`answer\`: the **whole answer so far** of the current model step (render the latest); with \`stream_format: delta\`, \`delta\`: only the new text (append it), and \`answer\` only where the text starts over (a new model step: replace it). The last \`message\` carries the whole answer and \`reference\` in both formats |
| \`error\` | \`code\` and \`message\` from the error table (30001 model failed after retries, 30002 tool timed out, 20001 internal); always followed by \`done\` |
| \`done\` | \`session_id\`, \`trace_id\`, \`cost\` (\`tokens\`, \`duration_ms\`, \`input_tokens\`, \`output_tokens\`, \`amount\`), \`stop_reason\`; the last event |

\`stream_format\` (\`answer\` by default, or \`delta\`; GET …/events takes it as a query parameter) says how \`message\` events carry the answer; a client keeps \`text = answer ?? text + delta\`. A stream resumed with Last-Event-ID goes on in the format it asks: in \`answer\`, its first \`message\` shows the whole answer so far.

Every event's \`data\` also carries \`timestamp\`: when the event was recorded (ISO 8601 UTC, milliseconds), the same on every read of the stream, so a client can lay out the run's timeline.

An idle stream gets a \`: keep-alive\` comment every STREAM_KEEPALIVE_MS (15 s). Events are stored (STREAM_RETENTION_HOURS, 24 h) for every run, streamed or not: a client that loses the
connection reconnects with the header \`Last-Event-ID: <id of the last event it got>\`, either by repeating this POST (the body is not run again) or with
\`GET /v1/combo/completions/{trace_id}/events\`, and receives exactly the events after it, from any API process.

With \`background: true\` the reply is HTTP 202 \`RunAccepted\` at once (\`status\` \`running\` or \`queued\`); the run goes on whatever the client does. A JSON call that does not answer within COMPLETION_REPLY_WAIT_MS gets the same reply (\`status\` may then be \`waiting_approval\`). \`POST /v1/combo/completions/{trace_id}/cancel\` stops a run.

Runs of one session never overlap: each run is its own workflow (\`completion-<trace_id>\`), and the session's workflow (\`session-runs-<session_id>\`) starts them one at a time, in order. A request while an earlier run of the session is going follows \`multitask_strategy\` (default: the agent's, else \`reject\`): \`reject\` answers 10005 naming the running \`trace_id\` (a run that has already answered and is only closing is waited for, so the next question may follow \`done\` at once); \`enqueue\` queues the run (stream: a \`thinking\` event with phase \`queued\`; its time in the queue counts inside COMPLETION_RUN_TIMEOUT_MS); \`interrupt\` cancels the earlier runs (queued ones too) and then starts it; \`rollback\` does the same and removes the cancelled run's turn from the session. A run that waited reads the session's history as the earlier runs left it.
The session must exist (10004), belong to the agent (10004) and be active (archived: 10005). \`attachments\` and \`context_ids\` that are unknown, another
tenant's, or (for documents) outside the agent's knowledge bases are 10004. A malformed or unknown \`route\` is 10001 naming the part.
Without a configured model (LLM_BASE_URL unset) routes that need one are answered by the offline mode \`@kbqa@extractive@default@\`: quoted
knowledge-base passages, introduced by a sentence saying that no language model was used, and \`offline: true\`.`;

function resumePoint(ctx: AppContext): { traceId: string; seq: number } | null {
  const header = ctx.get('last-event-id');
  if (!header) return null;
  const parsed = parseStreamEventId(header);
  if (!parsed)
    throw invalid('Last-Event-ID: must be an event id of a completion stream (<trace_id>:<n>)', { field: 'header.Last-Event-ID' });
  return parsed;
}

export const completionRoutes = (services: Services, streamDeps: EventStreamDeps) => {
  const listRoute = (path: string, operationId: string, summary: string) => ({
    path,
    operationId,
    summary,
    tag,
    query: runListQuery,
    response: completionRunPage,
  });

  return [
    defineRoute({
      method: 'post',
      path: '/v1/combo/agents/{agent_id}/completions',
      operationId: 'createCompletion',
      tag,
      summary: 'Ask the agent: one JSON reply, or a server-sent-event stream',
      description: `Runs the agent as a Temporal workflow (search attributes TenantId, AgentId, SessionId, TraceId = the reply's trace_id); each model call and tool call is an activity of its own.\n${STREAM_DESCRIPTION}`,
      params: completionParams,
      body: completionBody,
      response: completionReply,
      accepted: runAccepted,
      eventStream: completionEventStream,
      upstreamErrors: true,
      // A stream cannot be kept for repeats: the run follows from the key instead.
      idempotency: 'handler',
      handler: async ({ ctx, principal, params, body, idempotencyKey }) => {
        const answer = await services.commands.completions.ask(callerOf(principal), {
          agentId: params.agent_id,
          body,
          idempotencyKey,
          resumeAfter: resumePoint(ctx),
          traceId: ctx.state.traceId,
          signal: ctx.state.signal,
        });
        if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
        if (answer.kind === 'reply') return answer.reply;
        if (answer.kind === 'accepted') return answerAccepted(ctx, answer.accepted);
        streamRunEvents(ctx, streamDeps, {
          traceId: answer.traceId,
          owner: answer.owner,
          fromSeq: answer.fromSeq,
          format: body.stream_format,
          opening: answer.opening,
        });
        return STREAMED;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/combo/completions/{trace_id}/events',
      operationId: 'resumeCompletionStream',
      tag,
      summary: "Follow (or resume) a completion's events",
      description:
        "The same text/event-stream as a streamed completion, for every run (streamed or not, API, trigger or cron), while it runs and for STREAM_RETENTION_HOURS after. With `Last-Event-ID` (or `?last_event_id=`) it starts after that event, else from the first. A run that did not stream gets no partial `message` events, only the final one. 10004 for an unknown run or another tenant's.",
      params: traceParams,
      query: z
        .object({
          last_event_id: z.string().max(100).optional(),
          stream_format: z.enum(STREAM_FORMATS).default('answer').meta({
            description:
              "how `message` events carry the answer: `answer` (default) or `delta`, as the completion request's `stream_format`",
          }),
        })
        .strict(),
      response: 'raw',
      eventStream: completionEventStream,
      handler: async ({ ctx, principal, params, query }) => {
        const resume = resumePoint(ctx) ?? (query.last_event_id ? parseStreamEventId(query.last_event_id) : null);
        if (query.last_event_id && !resume)
          throw invalid('query.last_event_id: must be an event id of a completion stream', { field: 'query.last_event_id' });
        if (resume && resume.traceId !== params.trace_id)
          throw invalid('Last-Event-ID names another completion', { field: 'header.Last-Event-ID' });
        const { owner, fromSeq } = await services.commands.completions.eventsFrom(principal.tenantId, params.trace_id, resume?.seq ?? null);
        streamRunEvents(ctx, streamDeps, { traceId: params.trace_id, owner, fromSeq, format: query.stream_format });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/combo/completions/{trace_id}',
      operationId: 'getCompletion',
      tag,
      summary: 'A completion run: status, answer, cost, artifacts, error',
      params: traceParams,
      response: completionRun,
      handler: ({ principal, params }) => services.commands.completions.get(principal.tenantId, params.trace_id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/combo/completions/{trace_id}/cancel',
      operationId: 'cancelCompletion',
      tag,
      summary: 'Cancel a run: its model and tool calls stop and what it had is recorded',
      description:
        "A queued run leaves its session's queue (`canceled`, nothing recorded in the session). A running run's workflow is cancelled: the model request and tool call in flight are aborted and no further one starts; within about a second the run records what it had answered (the session's turn is marked `metadata.canceled`), its stream sends the last `message` and `done` with `stop_reason: canceled` and the cost spent so far, a waiting JSON call gets that as its reply, and `run.canceled` is emitted. Answers the run once it has ended (`status: canceled`). A run that has already ended is 10005.",
      params: traceParams,
      response: completionRun,
      handler: ({ ctx, principal, params }) => services.commands.completions.cancel(principal.tenantId, params.trace_id, ctx.state.signal),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/combo/completions/{trace_id}/approvals/{approval_id}',
      operationId: 'decideToolApproval',
      tag,
      summary: 'Approve or reject a tool call waiting for a person',
      description:
        "A run whose agent lists the tool in `approval.tools` waits (`waiting_approval`) when the model calls it; the stream's `approval_required` event, the outbound event `run.approval_required` and the run's `approvals` give the `approval_id`, the tool and its arguments. `approve`: the tool runs; `reject`: it does not, and the model is told (with `comment`) and goes on. The decision is a Temporal update of the run's workflow: the reply comes once it is applied and recorded, and worker restarts lose none. A repeat of the same decision answers `applied: false`; a different one, or a decision on an approval that timed out or whose run ended, is 10005; an approval the run does not have is 10004. Under the agent's `approval.separate_duties` the person who asked for the run (its `requested_by`) is refused with 10003, whatever their role, and on a trigger's or cron job's run (no requester) so is every member: admins decide those. If no worker takes it within 15 s the reply is 503 (code 20001): the decision may still apply when a worker polls again (Temporal holds it until then, though not across a server restart), and the same request repeated attaches to it and tells the outcome.",
      params: approvalParams,
      body: approvalDecisionBody,
      response: approvalDecision,
      otherErrors: {
        503: 'no worker took the decision within 15 s (20001); it may still apply: repeat the same decision to learn the outcome',
      },
      handler: ({ ctx, principal, params, body }) =>
        services.commands.approvals.decide(
          principal.tenantId,
          params.trace_id,
          params.approval_id,
          body,
          {
            label: `${principal.via === 'api_key' ? 'api_key' : 'user'}:${principal.userId}`,
            ownerId: principal.ownerId,
            role: principal.role,
          },
          ctx.state.signal,
        ),
    }),
    defineRoute({
      method: 'get',
      ...listRoute('/v1/combo/completions', 'listCompletions', "The tenant's runs, newest first"),
      handler: ({ principal, query }) => services.commands.completions.list(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      ...listRoute('/v1/combo/sessions/{session_id}/completions', 'listSessionCompletions', "A session's runs, newest first"),
      params: sessionParams,
      handler: ({ principal, params, query }) =>
        services.commands.completions.list(principal.tenantId, query, { sessionId: params.session_id }),
    }),
    defineRoute({
      method: 'get',
      ...listRoute('/v1/combo/agents/{agent_id}/completions', 'listAgentCompletions', "An agent's runs, newest first"),
      params: agentParams,
      handler: ({ principal, params, query }) =>
        services.commands.completions.list(principal.tenantId, query, { agentId: params.agent_id }),
    }),
  ];
};
