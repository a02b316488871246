import { createHash } from 'node:crypto';
import { log } from '@temporalio/activity';
import type { BoundTool, McpToolBinding } from '../completion/run-input';
import { mcpUrlAllowsPrivate } from '../common/net/private-hosts';
import { mcpModelToolName } from '../common/schemas/mcp-servers';
import type { AgentStore, McpServerConnection } from '../stores/agents';
import { callMcpTool, listMcpTools, type McpEndpoint, type McpToolAnswer } from '../upstream/mcp/mcp-client';

export interface McpToolDeps {
  agents: Pick<AgentStore, 'mcpServerConnection'>;
  settings: { ALLOW_PRIVATE_URLS: boolean; MCP_PRIVATE_HOSTS: readonly string[] };
  /** How long a server's tool list is reused (MCP_TOOLS_CACHE_MS). */
  toolsCacheMs: number;
}

export interface ListMcpToolsInput {
  tenantId: string;
  agentId: string;
  traceId: string;
  servers: string[];
}

/** A listing gets at least this long, whatever the server's call deadline. */
const LIST_TIMEOUT_MIN_MS = 10_000;
/** Tool lists kept per worker at most; the oldest goes first. */
const MAX_CACHED_LISTS = 500;

const endpointOf = (server: McpServerConnection, deps: McpToolDeps): McpEndpoint => ({
  url: server.url,
  headers: server.headers,
  allowPrivate: mcpUrlAllowsPrivate(server.url, deps.settings),
});

/** A cache key that changes with anything that can change the list, headers included (hashed: never kept in clear). */
const listKey = (tenantId: string, agentId: string, server: McpServerConnection) =>
  createHash('sha256')
    .update(JSON.stringify([tenantId, agentId, server.name, server.url, server.headers, server.allowedTools, server.timeoutMs]))
    .digest('hex');

/** The tools of an agent's MCP servers: listed when a run starts, and each call the model asks for. */
export function createMcpToolActivities(deps: McpToolDeps) {
  const cached = new Map<string, { at: number; tools: BoundTool[] }>();

  /** The server's allowed tools as the model sees them: the intersection of what it lists and `allowed_tools`. */
  async function allowedTools(tenantId: string, agentId: string, server: McpServerConnection): Promise<BoundTool[]> {
    const key = listKey(tenantId, agentId, server);
    const hit = cached.get(key);
    if (hit && Date.now() - hit.at < deps.toolsCacheMs) return hit.tools;
    const listed = await listMcpTools(endpointOf(server, deps), Math.max(LIST_TIMEOUT_MIN_MS, server.timeoutMs));
    const allowed = new Set(server.allowedTools);
    const tools = listed
      .filter((tool) => allowed.has(tool.name))
      .map((tool): BoundTool => ({
        spec: {
          name: mcpModelToolName(server.name, tool.name),
          description: tool.description ?? tool.title ?? tool.name,
          parameters: tool.inputSchema,
        },
        binding: { kind: 'mcp', server: server.name, tool: tool.name, timeoutMs: server.timeoutMs },
      }));
    if (cached.size >= MAX_CACHED_LISTS) cached.delete(cached.keys().next().value!);
    cached.set(key, { at: Date.now(), tools });
    return tools;
  }

  return {
    /**
     * The tools a run's MCP servers offer, in the order of the servers. A server that cannot be
     * listed (unreachable, refused, too slow) or no longer exists is skipped with a warning in the
     * worker's log: the run goes on with the tools it has.
     */
    async listMcpTools(input: ListMcpToolsInput): Promise<BoundTool[]> {
      const perServer = await Promise.all(
        input.servers.map(async (name) => {
          try {
            const server = await deps.agents.mcpServerConnection(input.tenantId, input.agentId, name);
            if (!server) throw new Error('the agent no longer has this server');
            return await allowedTools(input.tenantId, input.agentId, server);
          } catch (err) {
            log.warn("an MCP server's tools could not be listed; the run goes on without them", {
              trace_id: input.traceId,
              agent_id: input.agentId,
              mcp_server: name,
              error: (err as Error).message,
            });
            return [];
          }
        }),
      );
      return perServer.flat();
    },
  };
}

/**
 * One call of an MCP tool (callTool in activities/tools.ts runs it, with its events). The server is
 * read again from the agent: a server removed since the run started is the model's error to read.
 */
export async function runMcpTool(
  deps: McpToolDeps,
  { tenantId, agentId }: { tenantId: string; agentId: string },
  binding: McpToolBinding,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<McpToolAnswer> {
  const server = await deps.agents.mcpServerConnection(tenantId, agentId, binding.server);
  if (!server || !server.allowedTools.includes(binding.tool))
    return { ok: false, error: `the agent no longer offers the MCP tool ${mcpModelToolName(binding.server, binding.tool)}` };
  return callMcpTool(endpointOf(server, deps), binding.tool, args, { timeoutMs: binding.timeoutMs, signal });
}
