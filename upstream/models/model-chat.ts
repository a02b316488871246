/**
 * A ChatModelClient on the Vercel AI SDK: one model call to any provider the SDK speaks (OpenAI,
 * Anthropic, Google, OpenAI-compatible servers such as Ollama, vLLM, LM Studio, LiteLLM), plain or
 * streamed. The SDK never retries (Temporal does, per activity attempt) and never runs tools (the
 * workflow does). Every failure becomes a ChatModelError whose `retryable` tells the activity
 * whether another attempt can help; messages name the upstream's host and its own explanation,
 * never the API key or the full URL.
 */
import { generateText, jsonSchema, type LanguageModelUsage, NoObjectGeneratedError, Output, streamText } from 'ai';
import type { ChatCallOptions, ChatModelClient, ChatRequest, ChatResult, TokenUsage, ToolCall } from '../../common/chat-model';
import { ChatModelError } from '../../common/chat-model';
import type { ProviderConnection } from '../../common/model-provider';
import { hostOf, redact, truncate } from '../upstream-text';
import { chatErrorOf } from './model-errors';
import { modelMessages, modelTools, toolCallOf } from './model-messages';
import { baseUrlOf, languageModelsOf } from './provider-models';
import { estimateUsage } from './usage-estimate';

export interface ModelChatClientOptions {
  connection: ProviderConnection;
  /** Bounds the whole call: connecting, waiting and reading the full (possibly streamed) answer. */
  timeoutMs: number;
  /** The HTTP client of every call: a guarded one for providers that tenants configure. */
  fetch?: typeof globalThis.fetch;
}

const MAX_UPSTREAM_MESSAGE = 300;

/** What one call brought back, before usage is completed and names are mapped to the service's. */
interface Answer {
  content: string;
  toolCalls: ToolCall[];
  usage: LanguageModelUsage | undefined;
  /** The provider's own finish reason (`stop`, `tool_calls`, `end_turn`, `STOP`...), when it gave one. */
  rawFinishReason: string | undefined;
  finishReason: string;
  model: string | undefined;
}

/** The connection's host, and its provider built once; none when its base URL is not a valid http(s) URL. */
function providerOf(connection: ProviderConnection, fetch: typeof globalThis.fetch) {
  try {
    const host = hostOf(baseUrlOf(connection));
    return host === undefined ? undefined : { host, modelOf: languageModelsOf(connection, fetch) };
  } catch {
    return undefined;
  }
}

export function createModelChatClient({ connection, timeoutMs, fetch = globalThis.fetch }: ModelChatClientOptions): ChatModelClient {
  const provider = providerOf(connection, fetch);
  const who = `chat model upstream ${provider?.host ?? ''}`.trim();
  // The key and every header value long enough to be a credential (a gateway token, Azure's api-key).
  const secrets = [connection.apiKey, ...Object.values(connection.headers)].filter((v): v is string => v !== undefined && v.length >= 8);
  const safe = (message: string) => truncate(secrets.reduce(redact, redact(message, undefined)), MAX_UPSTREAM_MESSAGE);

  return {
    async complete(request: ChatRequest, call: ChatCallOptions): Promise<ChatResult> {
      if (provider === undefined) throw new ChatModelError('chat model upstream address is not a valid http(s) URL', false);
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
      const settings = {
        model: provider.modelOf(request.model),
        messages: modelMessages(request.messages, { systemOnlyAtStart: connection.kind === 'google' }),
        // The system messages are the service's own (instructions, skills), not a caller's text.
        allowSystemInMessages: true,
        tools: modelTools(request.tools),
        temperature: request.temperature,
        maxOutputTokens: request.maxTokens,
        maxRetries: 0,
        abortSignal: signal,
        ...(request.responseFormat
          ? { output: Output.object({ schema: jsonSchema(request.responseFormat.schema), name: request.responseFormat.name }) }
          : {}),
      };
      let answer: Answer;
      try {
        answer = call.stream ? await streamedAnswer(settings, call.onText) : await wholeAnswer(settings);
      } catch (err) {
        if (call.signal?.aborted) throw call.signal.reason ?? err;
        throw chatErrorOf(err, { who, safe, timedOut: timeout.aborted, timeoutMs });
      }
      // A stream that ended cleanly without the model saying why it stopped was cut short.
      if (call.stream && answer.rawFinishReason === undefined && answer.finishReason === 'other')
        throw new ChatModelError(`${who} ended the stream before the answer was complete`, true);
      return {
        content: answer.content,
        toolCalls: answer.toolCalls,
        usage: usageOf(answer.usage) ?? estimateUsage(request, answer.content, answer.toolCalls),
        finishReason: answer.toolCalls.length > 0 ? 'tool_calls' : finishReasonName(answer.finishReason),
        model: answer.model ?? request.model,
      };
    },
  };
}

type CallSettings = Parameters<typeof generateText>[0] & Parameters<typeof streamText>[0];

async function wholeAnswer(settings: CallSettings): Promise<Answer> {
  let result;
  try {
    result = await generateText(settings);
  } catch (err) {
    // Structured output that does not parse is the caller's to judge (a review is asked again), not a failed call.
    if (!NoObjectGeneratedError.isInstance(err) || err.text === undefined) throw err;
    return {
      content: err.text,
      toolCalls: [],
      usage: err.usage,
      rawFinishReason: undefined,
      finishReason: err.finishReason ?? 'stop',
      model: err.response?.modelId,
    };
  }
  return {
    content: result.text,
    toolCalls: result.toolCalls.map(toolCallOf),
    usage: result.usage,
    rawFinishReason: result.rawFinishReason,
    finishReason: result.finishReason,
    model: result.response.modelId,
  };
}

/** Reads the stream to its end, telling `onText` the whole text so far each time it grows; the stream's error is thrown. */
async function streamedAnswer(settings: CallSettings, onText?: (textSoFar: string) => void): Promise<Answer> {
  const answer: Answer = {
    content: '',
    toolCalls: [],
    usage: undefined,
    rawFinishReason: undefined,
    finishReason: 'other',
    model: undefined,
  };
  // Kept off the SDK's default handler, which logs to the console; the error part below throws it.
  const result = streamText({ ...settings, onError: () => undefined });
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        if (part.text === '') break;
        answer.content += part.text;
        onText?.(answer.content);
        break;
      case 'tool-call':
        answer.toolCalls.push(toolCallOf(part));
        break;
      case 'finish-step':
        answer.model ??= part.response.modelId;
        break;
      case 'finish':
        answer.usage = part.totalUsage;
        answer.rawFinishReason = part.rawFinishReason;
        answer.finishReason = part.finishReason;
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw settings.abortSignal?.reason ?? new Error('the model call was aborted');
      default:
        break;
    }
  }
  return answer;
}

/**
 * The provider's counts, when it reported them. Some servers send `usage` with null counts, which the
 * SDK reads as 0: no call reads no input, so a 0 there means none was reported.
 */
function usageOf(usage: LanguageModelUsage | undefined): TokenUsage | undefined {
  const promptTokens = usage?.inputTokens;
  const completionTokens = usage?.outputTokens;
  if (!promptTokens || completionTokens === undefined) return undefined;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: false };
}

/** The SDK's finish reasons in the names runs have always recorded (OpenAI's). */
const finishReasonName = (reason: string): string =>
  reason === 'content-filter' ? 'content_filter' : reason === 'tool-calls' ? 'tool_calls' : reason;
