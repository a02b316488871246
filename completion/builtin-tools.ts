import type { BoundTool, BuiltinToolName } from './run-input';

/** Tools the service itself provides. An agent lists the ones it may use in `tools`; the `agent` scenario offers all that apply. */
export const BUILTIN_TOOLS: Record<BuiltinToolName, BoundTool> = {
  search_knowledge: {
    spec: {
      name: 'search_knowledge',
      description: "Searches the agent's knowledge bases (hybrid vector and full-text search) and returns the best passages.",
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'what to look for' },
          top_k: { type: 'integer', minimum: 1, maximum: 10, description: 'passages to return (default 5)' },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    binding: { kind: 'builtin', name: 'search_knowledge' },
  },
  read_attachment: {
    spec: {
      name: 'read_attachment',
      description: 'Returns the text of a file attached to this request.',
      parameters: {
        type: 'object',
        properties: { file_id: { type: 'string', description: 'the attachment id (fil_...)' } },
        required: ['file_id'],
        additionalProperties: false,
      },
    },
    binding: { kind: 'builtin', name: 'read_attachment' },
  },
  current_time: {
    spec: {
      name: 'current_time',
      description: 'Returns the current date and time (UTC, ISO 8601).',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
    binding: { kind: 'builtin', name: 'current_time' },
  },
};

export const isBuiltinTool = (name: string): name is BuiltinToolName => Object.hasOwn(BUILTIN_TOOLS, name);
