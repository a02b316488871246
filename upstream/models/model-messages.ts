import { jsonSchema, type ModelMessage, tool, type ToolSet } from 'ai';
import type { ChatMessage, ToolCall, ToolSpec } from '../../common/chat-model';

/**
 * Arguments the model wrote, as the object the SDK sends back to the provider. Anthropic and Google
 * refuse anything but an object there (a call cut off mid-arguments would fail every later step),
 * so what is not a JSON object goes back as `{}`; the tool's error already told the model why.
 */
function argumentsValue(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The service's chat messages in the AI SDK's form; a tool result carries the name of the call it
 * answers. `systemOnlyAtStart`: the provider takes system messages only before the conversation
 * (Gemini), so a later one (posted to a session's messages) goes as a user message saying so.
 */
export function modelMessages(messages: ChatMessage[], { systemOnlyAtStart = false } = {}): ModelMessage[] {
  const callNames = new Map<string, string>();
  let conversationStarted = false;
  return messages.map((message): ModelMessage => {
    const afterStart = conversationStarted;
    if (message.role !== 'system') conversationStarted = true;
    switch (message.role) {
      case 'system':
        return systemOnlyAtStart && afterStart ? { role: 'user', content: `System: ${message.content}` } : message;
      case 'user':
        return message;
      case 'assistant': {
        const calls = message.tool_calls ?? [];
        for (const call of calls) callNames.set(call.id, call.name);
        if (calls.length === 0) return { role: 'assistant', content: message.content ?? '' };
        return {
          role: 'assistant',
          content: [
            ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
            ...calls.map((call) => ({
              type: 'tool-call' as const,
              toolCallId: call.id,
              toolName: call.name,
              input: argumentsValue(call.arguments),
            })),
          ],
        };
      }
      case 'tool':
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.tool_call_id,
              toolName: callNames.get(message.tool_call_id) ?? 'unknown',
              output: { type: 'text', value: message.content },
            },
          ],
        };
    }
  });
}

/** Tools the model may call, without `execute`: the SDK hands each call back, and the workflow runs it. */
export function modelTools(tools: ToolSpec[] | undefined): ToolSet | undefined {
  if (!tools?.length) return undefined;
  return Object.fromEntries(
    tools.map(({ name, description, parameters }) => [name, tool({ description, inputSchema: jsonSchema(parameters) })]),
  );
}

/** A call as the SDK reports it: its input parsed, or (when the model wrote no valid JSON) the text as written. */
export function toolCallOf(call: { toolCallId: string; toolName: string; input: unknown }): ToolCall {
  return {
    id: call.toolCallId,
    name: call.toolName,
    arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
  };
}
