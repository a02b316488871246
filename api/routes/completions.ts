import { z } from 'zod';
import { AppError, ErrorCodes, invalid } from '../../common/errors';
import {
  completionBody,
  completionParams,
  completionReply,
  completionRun,
  runAccepted,
  traceParams,
} from '../../common/schemas/completions';
import { completionEventStream } from '../../common/schemas/stream-events';
import { parseStreamEventId, type RunOwner } from '../../stores/run-events';
import { acceptedRun } from '../../commands/completions';
import type { AppContext } from '../context';
import { answerAccepted, defineRoute, STREAMED } from '../route';
import { streamRunEvents } from '../run-event-stream';
import type { Services } from '../services';

const tag = 'Completions';

const STREAM_DESCRIPTION = `
With \`stream: true\` the reply is \`text/event-stream\`. Every event has an \`id:\` (\`<trace_id>:<n>\`, n counting from 0), an \`event:\` name and one \`data:\` line of JSON:

| event | data |
|---|---|
| \`thinking\` | \`phase\`: \`accepted\` (first event; also \`trace_id\`, \`route\`), \`retrieval\`, \`model\` (\`step\`, \`attempt\`), \`model_retry\` (a model call is being retried after an upstream failure) |
| \`tool_call\` | \`tool\`, \`args\` |
| \`tool_result\` | \`tool\`, \`result\` (a failed tool gives \`{ "error": "..." }\`; the model reads it and goes on) |
| \`message\` | \`answer\`: the **whole answer so far** of the current model step (not a delta; render the latest). The last \`message\` carries the final answer and \`reference\` |
| \`error\` | \`code\` and \`message\` from the error table (30001 model failed after retries, 30002 tool timed out, 20001 internal); always followed by \`done\` |
| \`done\` | \`session_id\`, \`trace_id\`, \`cost\` (\`tokens\`, \`duration_ms\`); the last event |

An idle stream gets a \`: keep-alive\` comment every STREAM_KEEPALIVE_MS (15 s). Events are stored (STREAM_RETENTION_HOURS, 24 h): a client that loses the
connection reconnects with the header \`Last-Event-ID: <id of the last event it got>\`, either by repeating this POST (the body is not run again) or with
\`GET /v1/combo/completions/{trace_id}/events\`, and receives exactly the events after it, from any API process.

One completion runs per session at a time: a second request while one is running is refused with 10005 (a run that has already answered and is only closing is waited for, so the next question may follow \`done\` at once).
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

export const completionRoutes = (services: Services) => {
  const streamDeps = {
    runEvents: services.runEvents,
    runEnded: (workflowId: string, runId: string) => services.commands.completions.ended(workflowId, runId),
    log: services.log,
    pollMs: services.config.STREAM_POLL_MS,
    keepAliveMs: services.config.STREAM_KEEPALIVE_MS,
  };

  /** The run's owner from its first event; another tenant's run does not exist for the caller. */
  async function ownedRun(tenantId: string, traceId: string): Promise<RunOwner> {
    const first = await services.runEvents.read(traceId, 0);
    if (!first?.owner || first.owner.tenant_id !== tenantId) {
      throw new AppError(ErrorCodes.NOT_FOUND, `no stream of completion ${traceId} (not streamed, expired, or unknown)`, {
        resource: 'completion',
        id: traceId,
      });
    }
    return first.owner;
  }

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
      handler: async ({ ctx, principal, params, body }) => {
        const resume = resumePoint(ctx);
        if (resume) {
          const owner = await ownedRun(principal.tenantId, resume.traceId);
          if (owner.session_id !== body.session_id || owner.agent_id !== params.agent_id) {
            throw new AppError(ErrorCodes.NOT_FOUND, `completion ${resume.traceId} is not a run of this agent and session`, {
              resource: 'completion',
              id: resume.traceId,
            });
          }
          streamRunEvents(ctx, streamDeps, resume.traceId, owner, resume.seq + 1);
          return STREAMED;
        }
        const traceId = ctx.state.traceId;
        const run = await services.commands.completions.start(principal.tenantId, params.agent_id, body, traceId);
        if (!body.stream) {
          const reply = await services.commands.completions.awaitReply(run);
          return reply ?? answerAccepted(ctx, acceptedRun(run));
        }
        const owner: RunOwner = {
          tenant_id: principal.tenantId,
          session_id: run.input.sessionId,
          agent_id: run.input.agentId,
          workflow_id: run.workflowId,
          run_id: run.runId,
        };
        await services.runEvents.append(
          traceId,
          0,
          [{ event: 'thinking', data: { phase: 'accepted', trace_id: traceId, route: run.input.route.text, offline: run.input.offline } }],
          owner,
        );
        streamRunEvents(ctx, streamDeps, traceId, owner, 0);
        return STREAMED;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/combo/completions/{trace_id}/events',
      operationId: 'resumeCompletionStream',
      tag,
      summary: "Follow (or resume) a streamed completion's events",
      description:
        'The same text/event-stream as a streamed completion. With `Last-Event-ID` (or `?last_event_id=`) it starts after that event, else from the first. 10004 for a run that was not streamed, whose events expired, or of another tenant.',
      params: traceParams,
      query: z.object({ last_event_id: z.string().max(100).optional() }).strict(),
      response: 'raw',
      eventStream: completionEventStream,
      handler: async ({ ctx, principal, params, query }) => {
        const owner = await ownedRun(principal.tenantId, params.trace_id);
        const resume = resumePoint(ctx) ?? (query.last_event_id ? parseStreamEventId(query.last_event_id) : null);
        if (query.last_event_id && !resume)
          throw invalid('query.last_event_id: must be an event id of a completion stream', { field: 'query.last_event_id' });
        if (resume && resume.traceId !== params.trace_id)
          throw invalid('Last-Event-ID names another completion', { field: 'header.Last-Event-ID' });
        streamRunEvents(ctx, streamDeps, params.trace_id, owner, resume ? resume.seq + 1 : 0);
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
      handler: ({ principal, params }) => services.completionRuns.get(principal.tenantId, params.trace_id),
    }),
  ];
};
