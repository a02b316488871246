import type { ChatRequest, TokenUsage, ToolCall } from '../../common/chat-model';
import { countTokens } from '../../common/tokens';

/** OpenAI's chat format spends about this many tokens framing each message, and this many priming the reply. */
const TOKENS_PER_MESSAGE = 4;
const TOKENS_PER_REPLY = 3;

const callTokens = (calls: ToolCall[]) => calls.reduce((sum, call) => sum + countTokens(call.name) + countTokens(call.arguments), 0);

/**
 * cl100k_base counts of what was sent and received, for providers that report no usage: close for
 * OpenAI's models, a fair guess for others (their tokenizers differ).
 */
export function estimateUsage(request: ChatRequest, content: string, toolCalls: ToolCall[]): TokenUsage {
  let promptTokens = TOKENS_PER_REPLY;
  for (const message of request.messages) {
    promptTokens += TOKENS_PER_MESSAGE + countTokens(message.content ?? '');
    if (message.role === 'assistant' && message.tool_calls) promptTokens += callTokens(message.tool_calls);
  }
  if (request.tools?.length) {
    const tools = request.tools.map(({ name, description, parameters }) => ({
      type: 'function',
      function: { name, description, parameters },
    }));
    promptTokens += countTokens(JSON.stringify(tools));
  }
  const completionTokens = countTokens(content) + callTokens(toolCalls);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}
