import { z } from 'zod';
import { jsonText } from './json-text';

/**
 * The OpenAI-compatible surface (`/v1/openai/...`): OpenAI's own request and response shapes, not
 * the contract's envelope, so that the official `openai` clients read them unchanged. Only what we
 * serve is described; fields a client may send beyond it are ignored (see docs/api/openai-compatible.md).
 */

/** The longest message content taken, in characters (the question's own limit is the contract's 32,000). */
const MESSAGE_MAX_CHARS = 200_000;
/** The most messages one request carries; the history beyond what a run reads is not kept anyway. */
const OPENAI_MAX_MESSAGES = 1_000;

const textPart = z
  .object({ type: z.literal('text'), text: z.string().max(MESSAGE_MAX_CHARS) })
  .loose()
  .meta({ id: 'OpenAITextPart', description: 'a text part; other part types (images, audio, files) are refused (400)' });

/** A part of any type, so that a refused one is named as such rather than as a shape error. */
const contentPart = z.union([
  textPart,
  z
    .object({
      type: z
        .string()
        .max(64)
        .refine((type) => type !== 'text', 'a text part needs its `text`, at most 200,000 characters'),
    })
    .loose()
    .meta({ id: 'OpenAIOtherPart', description: 'a part of another type: refused (400)' }),
]);

const messageContent = z.union([z.string().max(MESSAGE_MAX_CHARS), z.array(contentPart).max(100), z.null()]);

const OPENAI_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const chatMessage = z
  .object({
    role: z.enum(OPENAI_ROLES),
    content: messageContent.optional(),
    name: z.string().max(256).optional(),
  })
  .loose()
  .meta({ id: 'OpenAIChatMessage' });

export type OpenAiChatMessage = z.infer<typeof chatMessage>;

const presentList = (description: string) => z.array(z.unknown()).max(1_000).nullable().optional().meta({ description });

export const chatCompletionRequest = z
  .object({
    model: z
      .string()
      .min(1)
      .max(128)
      .meta({ description: 'the agent to run: an `id` of GET /v1/openai/models (`agt_…`)', example: 'agt_8a3XbQv2mK0pLr7sTu9w' }),
    messages: z
      .array(chatMessage)
      .min(1)
      .max(OPENAI_MAX_MESSAGES)
      .meta({ description: 'the conversation; the last one must be `user` (its text is the question)' }),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .object({ include_usage: z.boolean().optional() })
      .loose()
      .nullable()
      .optional()
      .meta({ description: '`include_usage: true`: a last chunk before `[DONE]` carries `usage` (and every chunk `usage: null`)' }),
    n: z.number().int().min(1).max(1).nullable().optional().meta({ description: 'only 1' }),
    tools: presentList('caller-sent tools are not supported: a non-empty list is 400 (the agent runs its own tools)'),
    functions: presentList('not supported: a non-empty list is 400'),
    user: z
      .string()
      .max(256)
      .nullable()
      .optional()
      .meta({ description: 'the end user (front ends sharing one API key): conversations are found again per end user' }),
    response_format: z
      .object({ type: z.string().max(64) })
      .loose()
      .nullable()
      .optional()
      .meta({ description: 'only `{ "type": "text" }`: structured output is the agent\'s own (400 otherwise)' }),
  })
  .loose()
  .meta({
    id: 'OpenAIChatCompletionRequest',
    description:
      "OpenAI's chat completion request. Sampling settings (`temperature`, `max_tokens`, `top_p`, `stop`, `seed`, ...) and other " +
      "fields are accepted and ignored: the agent's own model settings apply.",
  });

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

const usage = z
  .object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  })
  .meta({ id: 'OpenAIUsage', description: "the run's input, output and total tokens (every model call of the run)" });

export type OpenAiUsage = z.infer<typeof usage>;

const FINISH_REASONS = ['stop', 'length'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];
const finishReason = z.enum(FINISH_REASONS).meta({
  description: '`stop`: answered (or cancelled); `length`: the run hit COMPLETION_MAX_STEPS or COMPLETION_MAX_TOKENS',
});

export const chatCompletion = z
  .object({
    id: z.string().meta({ description: '`chatcmpl-<trace_id>`: the run is GET /v1/combo/completions/{trace_id}' }),
    object: z.literal('chat.completion'),
    created: z.number().int().meta({ description: 'Unix seconds' }),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
        logprobs: z.null(),
        finish_reason: finishReason,
      }),
    ),
    usage,
  })
  .meta({ id: 'OpenAIChatCompletion' });

export type ChatCompletion = z.infer<typeof chatCompletion>;

const chatCompletionChunk = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.literal(0),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        logprobs: z.null(),
        finish_reason: finishReason.nullable(),
      }),
    ),
    usage: usage.nullable().optional(),
  })
  .meta({
    id: 'OpenAIChatCompletionChunk',
    description:
      'One `data:` line of the stream (no `event:` names), ending with `data: [DONE]`. A failure mid-stream is a `data:` line holding `{ "error": OpenAIError.error }`',
  });

export type ChatCompletionChunk = z.infer<typeof chatCompletionChunk>;

export const openAiModel = z
  .object({
    id: z.string().meta({ description: 'the agent id: use it as `model`' }),
    object: z.literal('model'),
    created: z.number().int().meta({ description: 'when the agent was created, Unix seconds' }),
    owned_by: z.string().meta({ description: 'the tenant' }),
    name: z.string().meta({ description: "the agent's name (beyond OpenAI's fields)" }),
  })
  .meta({ id: 'OpenAIModel' });

export type OpenAiModel = z.infer<typeof openAiModel>;

export const openAiModelList = z
  .object({ object: z.literal('list'), data: z.array(openAiModel) })
  .meta({ id: 'OpenAIModelList', description: "the tenant's agents, newest first (at most 1,000)" });

export const openAiModelParams = z.object({ model: z.string().min(1).max(128) }).strict();

export const openAiError = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().meta({ description: '`invalid_request_error`, `requests` (429), `server_error`' }),
      param: z.string().nullable().meta({ description: 'the offending field, for a 400' }),
      code: z.string().nullable().meta({ description: 'e.g. `model_not_found`, `invalid_api_key`, `rate_limit_exceeded`, `session_busy`' }),
      combo_code: z.number().int().meta({ description: "the contract's error code (10001-30002)" }),
      trace_id: z.string(),
    }),
  })
  .meta({ id: 'OpenAIError', description: "OpenAI's error body, so that the official clients raise their own typed errors" });

export type OpenAiError = z.infer<typeof openAiError>;

/** The text/event-stream of a streamed chat completion, one frame per `data:` line, as OpenAI sends it. */
export const chatCompletionEventStream = z
  .union([
    z.object({ data: jsonText(chatCompletionChunk, 'a chunk: JSON text, to parse') }).meta({ id: 'OpenAIChunkFrame' }),
    z.object({ data: jsonText(openAiError, 'a failure mid-stream: JSON text, to parse') }).meta({ id: 'OpenAIErrorFrame' }),
    z.object({ data: z.literal('[DONE]') }).meta({ id: 'OpenAIDoneFrame', description: 'the last frame' }),
  ])
  .meta({
    id: 'OpenAIChatCompletionStreamFrame',
    description: "One `data:` line of a streamed chat completion (no `event:` or `id:` lines), as OpenAI's clients read them.",
  });
