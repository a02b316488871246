import { invalid } from '../../common/errors';
import {
  chatCompletion,
  chatCompletionEventStream,
  chatCompletionRequest,
  openAiError,
  openAiModel,
  openAiModelList,
  openAiModelParams,
} from '../../common/schemas/openai';
import { callerOf } from '../auth';
import type { AppContext } from '../context';
import { openAiChunkFraming } from '../openai-chunks';
import { defineRoute, STREAMED } from '../route';
import { type EventStreamDeps, streamRunEvents } from '../run-event-stream';
import type { Services } from '../services';

const tag = 'OpenAI-compatible';
const bare = { error: openAiError };

/** The header that binds a request to one of our sessions. */
const SESSION_HEADER = 'X-Combo-Session-Id';
const SESSION_ID_SHAPE = /^[\x21-\x7e]{1,128}$/;

function boundSession(ctx: AppContext): string | undefined {
  const value = ctx.get(SESSION_HEADER);
  if (value === '') return undefined;
  const field = `header.${SESSION_HEADER}`;
  if (!SESSION_ID_SHAPE.test(value)) throw invalid(`${field}: must be a session id (ses_…)`, { field });
  return value;
}

const CHAT_DESCRIPTION = `
Runs the agent named by \`model\` (an id of GET /v1/openai/models) on the last message, a user message, as a normal completion run: its own instructions, tools, knowledge bases, skills and approvals; a Temporal workflow with its search attributes; its cost recorded; its events and webhooks emitted. The reply headers \`X-Combo-Session-Id\` and \`X-Combo-Trace-Id\` name the session and the run (GET /v1/combo/completions/{trace_id}); the completion's \`id\` is \`chatcmpl-<trace_id>\`.

**Conversations.** \`X-Combo-Session-Id: ses_…\` binds the call to one of the agent's sessions: the model then sees the session's history, and the earlier messages the caller sends are not read. Without it the call continues the session whose conversation its earlier messages repeat (the same user and assistant messages, in order, since the conversation's first question, by the same caller), or opens a new session (one \`session.created\`), named after the first question, that takes those earlier messages (and system messages) in as its history. So a client that sends the whole conversation every time (Open WebUI) keeps one durable session per conversation; an edited or regenerated history starts a new one.

**Streaming.** \`stream: true\` answers \`text/event-stream\`: \`data:\` lines of \`chat.completion.chunk\` (the first with \`role\`), only new text in each, a last chunk with \`finish_reason\`, then \`data: [DONE]\`. With \`stream_options.include_usage\` a chunk with empty \`choices\` and \`usage\` comes before \`[DONE]\`. When a model step after a tool call starts its text over, the new text follows on a new paragraph (the whole completion's \`content\` is the last step's). A failure mid-stream is a \`data:\` line \`{"error": {...}}\` (OpenAI's error object) before \`[DONE]\`. Progress, tool calls and approvals are not in this stream: follow them with GET /v1/combo/completions/{trace_id}/events.

Without \`stream\`, the reply waits for the run's end while the client stays connected (a tool call waiting for approval included; COMPLETION_RUN_TIMEOUT_MS bounds it).

Caller-sent \`tools\` / \`functions\`, \`tool\` messages, non-text content parts, \`n\` above 1 and a \`response_format\` other than text are refused (400). Sampling settings and other fields are ignored: the agent's model settings apply. Counts in the completions rate family (60 a minute). Errors, including 401, 403, 429 and an Idempotency-Key's 409, have OpenAI's error body.`;

export const openAiRoutes = (services: Services, streamDeps: EventStreamDeps) => [
  defineRoute({
    method: 'get',
    path: '/v1/openai/models',
    operationId: 'listOpenAIModels',
    tag,
    summary: "The tenant's agents as OpenAI models",
    description: "Each agent is a model whose `id` is the agent id, newest first, at most 1,000. OpenAI's list object, no envelope.",
    response: openAiModelList,
    bare,
    handler: async ({ principal }) => ({ object: 'list' as const, data: await services.commands.openai.models(principal.tenantId) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/openai/models/{model}',
    operationId: 'getOpenAIModel',
    tag,
    summary: 'One agent as an OpenAI model',
    description: "An unknown agent is 404 with OpenAI's `model_not_found`.",
    params: openAiModelParams,
    response: openAiModel,
    bare,
    handler: ({ principal, params }) => services.commands.openai.model(principal.tenantId, params.model),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/openai/chat/completions',
    operationId: 'createOpenAIChatCompletion',
    tag,
    summary: 'Run an agent with the OpenAI chat completions API',
    description: CHAT_DESCRIPTION,
    body: chatCompletionRequest,
    response: chatCompletion,
    eventStream: chatCompletionEventStream,
    upstreamErrors: true,
    bare,
    // A stream cannot be kept for repeats: a repeat attaches to the run its key started.
    idempotency: 'handler',
    handler: async ({ ctx, principal, body, idempotencyKey }) => {
      const answer = await services.commands.openai.chat(callerOf(principal), {
        body,
        userId: principal.userId,
        sessionId: boundSession(ctx),
        idempotencyKey,
        traceId: ctx.state.traceId,
        signal: ctx.state.signal,
      });
      ctx.set(SESSION_HEADER, answer.sessionId);
      ctx.set('X-Combo-Trace-Id', answer.traceId);
      if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
      if (answer.kind === 'completion') return answer.completion;
      const { stream } = answer;
      streamRunEvents(ctx, streamDeps, {
        traceId: stream.traceId,
        owner: stream.owner,
        fromSeq: stream.fromSeq,
        format: 'delta',
        opening: stream.opening,
        framing: openAiChunkFraming({
          traceId: stream.traceId,
          created: answer.created,
          model: body.model,
          includeUsage: answer.includeUsage,
        }),
      });
      return STREAMED;
    },
  }),
];
