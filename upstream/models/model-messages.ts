import { jsonSchema, type ModelMessage, tool, type ToolSet } from 'ai';
import type { ChatMessage, ToolCall, ToolSpec } from '../../common/chat-model';

/** Arguments the model wrote, parsed when they are JSON (the SDK sends them on as JSON), else as written. */
function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The service's chat messages in the AI SDK's form; a tool result carries the name of the call it answers. */
export function modelMessages(messages: ChatMessage[]): ModelMessage[] {
  const callNames = new Map<string, string>();
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case 'system':
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
