import { z } from 'zod';
import { httpUrlText } from './common';

/**
 * MCP servers an agent uses as tools (docs/mcp-tools.md). The model sees a server's tool as
 * `<server>__<tool>`. Skill tools are `<skill>__<tool>` with a skill name that has no `__` and a tool
 * name starting with a letter; a server name has no `_` at all and an MCP tool name offered starts
 * with a letter, so in both kinds of name the text before the first `__` is the skill's or the
 * server's name: the two can only collide when a server is named as an active skill, which the
 * agent's save refuses (its own skills) and a run's start skips (a skill activated on the session).
 * Built-in tool names have no `__`.
 */
const MCP_TOOL_SEPARATOR = '__';
/** OpenAI's ceiling on a function name (^[a-zA-Z0-9_-]{1,64}$). */
const MODEL_TOOL_NAME_MAX = 64;
const MAX_MCP_SERVERS = 8;
const MAX_ALLOWED_TOOLS = 64;
const MAX_MCP_HEADERS = 16;
/** A tool call's default and longest deadline. */
export const MCP_TOOL_TIMEOUT_DEFAULT_MS = 10_000;
const MCP_TOOL_TIMEOUT_MAX_MS = 120_000;

export const MCP_SERVER_NAME = /^[a-z][a-z0-9-]{0,30}[a-z0-9]$/;
export const MCP_TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,61}$/;

/** The name the model sees for a server's tool. */
export const mcpModelToolName = (server: string, tool: string) => `${server}${MCP_TOOL_SEPARATOR}${tool}`;

/** A model tool name `<server>__<tool>` split at its first `__` (a server name has no `_`). */
export function splitMcpToolName(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(MCP_TOOL_SEPARATOR);
  if (at < 1) return null;
  return { server: name.slice(0, at), tool: name.slice(at + MCP_TOOL_SEPARATOR.length) };
}

/** Headers the MCP client sets itself (transport and protocol). */
const TRANSPORT_HEADER =
  /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|te|trailer|accept|accept-encoding|mcp-session-id|mcp-protocol-version|last-event-id)$/i;

const headers = z
  .record(
    z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'header names are 1-64 token characters'),
    z
      .string()
      .max(4000)
      .regex(/^[\t\x20-\x7e]*$/, 'header values are printable ASCII'),
  )
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > MAX_MCP_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_MCP_HEADERS} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      if (TRANSPORT_HEADER.test(name))
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not allowed: the MCP client sets transport headers itself' });
      if (seen.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [name], message: 'is given twice (names ignore case)' });
      seen.add(name.toLowerCase());
    }
  });

const serverName = z
  .string()
  .regex(MCP_SERVER_NAME, 'must be 2-32 of a-z 0-9 - starting with a letter and not ending with -')
  .meta({ description: "the server's name in the agent; the model sees its tools as `<name>__<tool>`", example: 'weather' });

const allowedTools = z
  .array(z.string().regex(MCP_TOOL_NAME, 'MCP tool names offered to a model are 1-62 of A-Z a-z 0-9 _ - starting with a letter'))
  .min(1)
  .max(MAX_ALLOWED_TOOLS)
  .meta({
    description:
      "the server's tools the model may call (others are never offered); each as the server names it. A name the server does not list is skipped",
    example: ['get_forecast'],
  });

const timeoutMs = z
  .number()
  .int()
  .min(100)
  .max(MCP_TOOL_TIMEOUT_MAX_MS)
  .meta({
    description: `one tool call's deadline in ms (default ${MCP_TOOL_TIMEOUT_DEFAULT_MS}); a call that takes longer, on both attempts, fails the run with 30002`,
  });

function checkToolNameLengths(server: { name: string; allowed_tools: string[] }, ctx: z.RefinementCtx) {
  server.allowed_tools.forEach((tool, i) => {
    if (mcpModelToolName(server.name, tool).length > MODEL_TOOL_NAME_MAX)
      ctx.addIssue({
        code: 'custom',
        path: ['allowed_tools', i],
        message: `"${mcpModelToolName(server.name, tool)}" (server name, "__", tool name) is longer than ${MODEL_TOOL_NAME_MAX} characters`,
      });
  });
}

/** An MCP server as an agent's create or update names it. */
const mcpServerInput = z
  .object({
    name: serverName,
    url: httpUrlText.meta({
      description:
        "the server's Streamable HTTP endpoint (http or https, no credentials). Private, loopback and reserved addresses are " +
        'refused (10001) unless the installation sets ALLOW_PRIVATE_URLS or lists the host in MCP_PRIVATE_HOSTS',
      example: 'https://mcp.example.com/mcp',
    }),
    headers: headers.optional().meta({
      description:
        `request headers sent on every call (an \`Authorization\` bearer token, an API key), at most ${MAX_MCP_HEADERS}. Their values ` +
        'are stored encrypted and never shown again (only `header_names`). Absent on an update: the headers stored for the server of ' +
        'the same name are kept; `{}` removes them',
    }),
    allowed_tools: allowedTools,
    timeout_ms: timeoutMs.optional(),
  })
  .strict()
  .superRefine(checkToolNameLengths)
  .meta({ id: 'McpServerInput', description: 'An MCP server (Streamable HTTP) whose tools the agent may call' });

export const mcpServersInput = z
  .array(mcpServerInput)
  .max(MAX_MCP_SERVERS)
  .superRefine((servers, ctx) => {
    const seen = new Set<string>();
    servers.forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `server name ${s.name} is used twice` });
      seen.add(s.name);
    });
  })
  .meta({
    description:
      `MCP servers whose tools the agent may call, at most ${MAX_MCP_SERVERS} (docs/mcp-tools.md). A server's name must not be the ` +
      "name of one of the agent's skills (10001); the model sees its tools as `<server>__<tool>`",
  });

export const mcpServer = z
  .object({
    name: z.string(),
    url: z.string(),
    header_names: z.array(z.string()).meta({ description: 'the names of the stored headers (their values are never shown)' }),
    allowed_tools: z.array(z.string()),
    timeout_ms: z.number().int(),
  })
  .meta({ id: 'McpServer', description: 'An MCP server whose tools the agent may call; header values are never shown' });

export type McpServerInput = z.infer<typeof mcpServerInput>;
export type McpServer = z.infer<typeof mcpServer>;
