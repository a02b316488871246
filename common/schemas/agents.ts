import { z } from 'zod';
import { isoDate, metadataMap, pageOf, referenceTo, resourceId } from './common';
import { MCP_SERVER_NAME, MCP_TOOL_NAME, mcpServer, mcpServersInput, splitMcpToolName } from './mcp-servers';
import { routeString } from './routes';

export const agentId = resourceId('agt', 'agent id');

/** What a completion does when its session already has a run going (see the completions operation). */
const MULTITASK_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export const multitaskStrategy = z.enum(MULTITASK_STRATEGIES).meta({
  id: 'MultitaskStrategy',
  description:
    'a completion on a session whose earlier run is still going: `reject` it (10005 naming the running trace_id), `enqueue` it (it starts when the earlier runs end, in order), `interrupt` the earlier runs (cancelled as by POST …/cancel, their partial answers kept) and start it, or `rollback` them (cancelled and their turns removed from the session history) and start it',
});

/** Tools the service provides; skills bring their own. */
export const BUILTIN_TOOL_NAMES = ['search_knowledge', 'read_attachment', 'current_time'] as const;
const builtinToolName = z.enum(BUILTIN_TOOL_NAMES);

/** An MCP server's tool as the model sees it, `<server>__<tool>` (common/schemas/mcp-servers.ts). */
function isMcpToolName(name: string): boolean {
  const split = splitMcpToolName(name);
  return split !== null && MCP_SERVER_NAME.test(split.server) && MCP_TOOL_NAME.test(split.tool);
}

/**
 * A tool as the model sees it: a built-in tool, a skill's as `<skill>__<tool>` (common/schemas/skills.ts),
 * or an MCP server's as `<server>__<tool>`.
 */
const approvalToolName = z
  .string()
  .refine(
    (name) =>
      (BUILTIN_TOOL_NAMES as readonly string[]).includes(name) ||
      /^[a-z][a-z0-9_-]{1,39}__[a-z][a-z0-9_]{0,39}$/.test(name) ||
      isMcpToolName(name),
    'must be a built-in tool (search_knowledge, read_attachment, current_time), a skill tool as <skill>__<tool> or an MCP server tool as <server>__<tool>',
  );

/** The longest a tool call may wait for a person (the run's own time bound limits it further: see agent docs). */
const APPROVAL_TIMEOUT_MAX_S = 86_400;

const approvalSettings = z
  .object({
    tools: z.array(approvalToolName).min(1).max(64).meta({
      description:
        'tools whose calls wait for a person: built-in names, skill tools as `<skill>__<tool>`, MCP server tools as `<server>__<tool>`',
    }),
    timeout_s: z.number().int().min(1).max(APPROVAL_TIMEOUT_MAX_S).default(120).meta({
      description:
        'how long a call waits for a decision before it counts as rejected (default 120); at most half of the run time bound (COMPLETION_RUN_TIMEOUT_MS), else 10001, and never longer than half of what remains of the run',
    }),
    separate_duties: z.boolean().default(false).meta({
      description:
        "separation of duties: the person who asked for the run (its `requested_by`) may not decide its tool calls (10003), whatever their role; another member or admin must. A trigger's or cron job's run (no requester) is decided by admins only. Default false; a PUT whose `approval` leaves it out sets it false. Taken as it was when the run started",
    }),
  })
  .strict()
  .meta({
    id: 'ApprovalSettings',
    description:
      "Tool calls that need a person's approval: the run waits (`waiting_approval`) until `POST /v1/combo/completions/{trace_id}/approvals/{approval_id}` decides, or `timeout_s` passes (rejected)",
  });

const modelSettings = z
  .object({
    provider_id: referenceTo('mp', 'model provider id')
      .optional()
      .meta({
        description:
          "the tenant's model provider (`/v1/model-providers`) the agent's model calls go to (must exist: 10004); absent: the " +
          "installation's default provider (LLM_*)",
      }),
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({
        description:
          "model name. With `provider_id`: one of the provider's `models` (10001 otherwise), the provider's first model when absent; " +
          "without: the installation's default model (LLM_MODEL) when absent",
      }),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().min(1).max(128_000).optional().meta({ description: 'ceiling on tokens generated per LLM call' }),
  })
  .strict()
  .meta({
    id: 'ModelSettings',
    description: "The agent's model: a provider of the tenant and its model, or overrides of the installation's default provider",
  });

const agentFields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2000),
  instructions: z.string().max(20_000).meta({ description: 'system instructions given to the model on every run' }),
  model: modelSettings,
  tools: z.array(builtinToolName).max(BUILTIN_TOOL_NAMES.length).meta({
    description: 'built-in tools the model may call in every scenario (the `agent` scenario offers all that apply); skills add their own',
  }),
  kb_ids: z
    .array(referenceTo('kb', 'knowledge base id'))
    .max(32)
    .meta({ description: 'knowledge bases the agent may search (must exist: 10004)' }),
  skills: z
    .array(referenceTo('skl', 'skill id'))
    .max(32)
    .meta({ description: 'installed skills active on every session of the agent (must exist: 10004)' }),
  mcp_servers: mcpServersInput,
  default_route: routeString.nullable().meta({ description: 'route used when a completion names none' }),
  multitask_strategy: multitaskStrategy.meta({ description: "the default of the agent's completions that name none" }),
  // A union, not .nullable(): a nullable component becomes an allOf that client generators refuse.
  approval: z.union([approvalSettings, z.null()]).meta({ description: "tool calls that wait for a person's approval; null: none" }),
  metadata: metadataMap,
};

export const createAgentBody = z
  .object({
    name: agentFields.name,
    description: agentFields.description.default(''),
    instructions: agentFields.instructions.default(''),
    model: agentFields.model.default({}),
    tools: agentFields.tools.default([]),
    kb_ids: agentFields.kb_ids.default([]),
    skills: agentFields.skills.default([]),
    mcp_servers: agentFields.mcp_servers.default([]),
    default_route: agentFields.default_route.default(null),
    multitask_strategy: agentFields.multitask_strategy.default('reject'),
    approval: agentFields.approval.default(null),
    metadata: agentFields.metadata.default({}),
  })
  .strict()
  .meta({ id: 'CreateAgentRequest' });

/** PUT replaces the fields it names and keeps the others; at least one field is required. */
export const updateAgentBody = z
  .object(agentFields)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field to update')
  .meta({ id: 'UpdateAgentRequest' });

export const agent = z
  .object({
    agent_id: agentId,
    name: z.string(),
    description: z.string(),
    instructions: z.string(),
    model: modelSettings,
    tools: z.array(z.string()),
    kb_ids: z.array(z.string()),
    skills: z.array(z.string()),
    mcp_servers: z.array(mcpServer).meta({ description: 'MCP servers whose tools the agent may call (docs/mcp-tools.md)' }),
    default_route: z.string().nullable(),
    multitask_strategy: multitaskStrategy,
    approval: z.union([approvalSettings, z.null()]),
    metadata: z.record(z.string(), z.string()),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'Agent' });

export const agentPage = pageOf(agent, 'AgentPage');
export const agentParams = z.object({ agent_id: agentId }).strict();

export type CreateAgentBody = z.infer<typeof createAgentBody>;
export type UpdateAgentBody = z.infer<typeof updateAgentBody>;
export type Agent = z.infer<typeof agent>;
export type MultitaskStrategy = z.infer<typeof multitaskStrategy>;
