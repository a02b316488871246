/**
 * The service's view of a chat model: OpenAI-compatible chat completions (OpenAI, Ollama, vLLM,
 * LM Studio, ...). Pure types, shared by activities (which call the model) and workflows (which
 * carry messages between steps): no I/O here.
 */
export interface ToolCall {
  /** The provider's id of this call; echoed back on the tool message that answers it. */
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, possibly malformed. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

/** A function the model may call; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** Structured output: the answer must be JSON matching `schema` (OpenAI's `response_format` json_schema, strict). */
  responseFormat?: { name: string; schema: Record<string, unknown> };
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** true when the provider sent no usage and the counts were estimated locally. */
  estimated: boolean;
}

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  /** `stop`, `tool_calls`, `length`, ... as the provider said. */
  finishReason: string;
  /** The model that answered, as the provider named it. */
  model: string;
}

export interface ChatCallOptions {
  /** Use the provider's streaming mode; `onText` then sees the answer grow. */
  stream: boolean;
  /** Called with the whole text so far each time it grows (streaming only). */
  onText?: (textSoFar: string) => void;
  signal?: AbortSignal;
}

export interface ChatModelClient {
  complete(request: ChatRequest, options: ChatCallOptions): Promise<ChatResult>;
}

/**
 * The model upstream failed. `retryable`: a 5xx, a 429, a network error or a timeout (worth another
 * attempt); not retryable: any other 4xx (the request itself is wrong, retrying cannot help).
 */
export class ChatModelError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ChatModelError';
  }
}
