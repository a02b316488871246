import { z } from 'zod';
import { isoDate, metadataMap, pageOf, referenceTo, resourceId } from './common';
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

const modelSettings = z
  .object({
    model: z.string().min(1).max(200).optional().meta({ description: 'model name; the global default when absent' }),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().min(1).max(128_000).optional().meta({ description: 'ceiling on tokens generated per LLM call' }),
  })
  .strict()
  .meta({ id: 'ModelSettings', description: 'Per-agent overrides of the globally configured OpenAI-compatible model' });

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
  default_route: routeString.nullable().meta({ description: 'route used when a completion names none' }),
  multitask_strategy: multitaskStrategy.meta({ description: "the default of the agent's completions that name none" }),
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
    default_route: agentFields.default_route.default(null),
    multitask_strategy: agentFields.multitask_strategy.default('reject'),
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
    default_route: z.string().nullable(),
    multitask_strategy: multitaskStrategy,
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
