/**
 * Data hooks of the Agents section: the paged list, one agent, create, update, delete (with the
 * cascade of its cron jobs and triggers), the request schemas read from the served OpenAPI document,
 * and what the form's id lists and route pickers offer (knowledge bases, skills, routes).
 */
import { type Agent, type Combo, ComboError, type CreateAgentRequest, type Page, type UpdateAgentRequest } from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['agents'] as const;

/** The agents, page by page; with `name`, those whose name contains it. */
export function useAgents(name?: string) {
  const client = useApi();
  return usePagedList<Agent>([...KEY, 'list', name ?? null], (page) => client.agents.list({ ...page, ...(name ? { name } : {}) }));
}

export function useAgent(agentId: string) {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'one', agentId], queryFn: () => client.agents.get(agentId) });
}

export function useCreateAgent() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateAgentRequest) => client.agents.create(body),
    onSuccess: (agent) => {
      queryClient.setQueryData([...KEY, 'one', agent.agent_id], agent);
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

export function useUpdateAgent(agentId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateAgentRequest) => client.agents.update(agentId, body),
    onSuccess: (agent) => {
      queryClient.setQueryData([...KEY, 'one', agentId], agent);
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

/** What runs the agent and holds its delete back (the API's 10005 `data.cron_ids` / `data.trigger_ids`). */
export interface DeleteBlockers {
  cronIds: string[];
  triggerIds: string[];
}

/** The cron jobs and triggers a refused delete names, or undefined for any other failure. */
export function deleteBlockers(error: unknown): DeleteBlockers | undefined {
  if (!(error instanceof ComboError) || error.code !== 10005) return undefined;
  const ids = (value: unknown) => (Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : []);
  const blockers = { cronIds: ids(error.data.cron_ids), triggerIds: ids(error.data.trigger_ids) };
  return blockers.cronIds.length + blockers.triggerIds.length > 0 ? blockers : undefined;
}

export function useDeleteAgent() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ agentId, cascade }: { agentId: string; cascade: boolean }) =>
      client.agents.delete(agentId, cascade ? { cascade: true } : {}),
    onSuccess: (_deleted, { agentId }) => {
      queryClient.removeQueries({ queryKey: [...KEY, 'one', agentId] });
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

/** The subset of JSON Schema (2020-12, as the OpenAPI document writes it) the agent form reads. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
}

/** The schema with every `#/components/schemas/…` reference replaced by what it names. */
function dereference(schema: JsonSchema, components: Record<string, JsonSchema>, depth = 0): JsonSchema {
  if (depth > 16) return schema;
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/components\/schemas\//, '');
    const target = components[name];
    if (!target) throw new Error(`the OpenAPI document has no schema ${name}`);
    const { $ref: _ref, ...rest } = schema;
    return { ...dereference(target, components, depth + 1), ...rest };
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties)
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, dereference(v, components, depth + 1)]));
  if (schema.items) out.items = dereference(schema.items, components, depth + 1);
  if (schema.anyOf) out.anyOf = schema.anyOf.map((s) => dereference(s, components, depth + 1));
  if (typeof schema.additionalProperties === 'object')
    out.additionalProperties = dereference(schema.additionalProperties, components, depth + 1);
  return out;
}

export interface AgentSchemas {
  create: JsonSchema;
  update: JsonSchema;
}

/** `CreateAgentRequest` and `UpdateAgentRequest` from the served OpenAPI document (`GET /v1/openapi.json`). */
export function useAgentSchemas() {
  const client = useApi();
  return useQuery({
    queryKey: [...KEY, 'schemas'],
    queryFn: async (): Promise<AgentSchemas> => {
      const document = (await client.service.openapi()) as { components?: { schemas?: Record<string, JsonSchema> } };
      const components = document.components?.schemas ?? {};
      const named = (name: string) => {
        const schema = components[name];
        if (!schema) throw new Error(`the service's OpenAPI document has no ${name} schema`);
        return dereference(schema, components);
      };
      return { create: named('CreateAgentRequest'), update: named('UpdateAgentRequest') };
    },
    staleTime: Infinity,
  });
}

/** Every item of a list, page after page of 100 (at most `cap`). */
async function everyItem<Item>(fetchPage: (page: number) => Promise<Page<Item>>, cap = 1_000): Promise<{ items: Item[]; total: number }> {
  const items: Item[] = [];
  for (let page = 1; ; page++) {
    const result = await fetchPage(page);
    items.push(...result.items);
    if (result.items.length === 0 || items.length >= result.total || items.length >= cap) return { items, total: result.total };
  }
}

/** One choice of a multi-select fed by a list endpoint. */
export interface Choice {
  value: string;
  label: string;
  hint?: string;
}

/** Knowledge bases and skills of the tenant, and the skills' tools as the model sees them (`<skill>__<tool>`). */
export function useAgentFormChoices() {
  const client = useApi();
  const kbs = useQuery({
    queryKey: [...KEY, 'choices', 'kb'],
    queryFn: () => everyItem((page) => client.knowledgeBases.list({ page, page_size: 100 })),
  });
  const skills = useQuery({
    queryKey: [...KEY, 'choices', 'skills'],
    queryFn: () => everyItem((page) => client.skills.list({ page, page_size: 100 })),
  });
  const kbChoices: Choice[] | undefined = kbs.data?.items.map((kb) => ({
    value: kb.kb_id,
    label: kb.name,
    hint: `${kb.kb_id} · ${kb.document_count} documents`,
  }));
  const skillChoices: Choice[] | undefined = skills.data?.items.map((skill) => ({
    value: skill.skill_id,
    label: `${skill.name} ${skill.version}`,
    hint: `${skill.skill_id} · ${skill.tools.length} tools`,
  }));
  const skillTools: Choice[] | undefined = skills.data?.items.flatMap((skill) =>
    skill.tools.map((tool) => ({ value: `${skill.name}__${tool.name}`, label: `${skill.name}__${tool.name}`, hint: tool.description })),
  );
  return { kbChoices, skillChoices, skillTools, error: kbs.error ?? skills.error, isLoading: kbs.isLoading || skills.isLoading };
}

/** One route a completion may take (`@scenario@processor@mode@`), with what each of its parts does. */
export interface RouteChoice {
  route: string;
  scenario: string;
  processor: string;
  mode: string;
  /** What the scenario, the processor and the mode do, in the catalogue's words. */
  parts: Array<{ name: string; description: string }>;
}

async function fetchRoutes(client: Combo): Promise<RouteChoice[]> {
  const [scenarios, processors] = await Promise.all([client.scenarios.list(), client.processors.list()]);
  const byId = new Map(processors.items.map((processor) => [processor.processor_id, processor]));
  return scenarios.items.flatMap((scenario) =>
    scenario.processors.flatMap((processorId) => {
      const processor = byId.get(processorId);
      return (processor?.modes ?? []).map((mode) => ({
        route: `@${scenario.scenario_id}@${processorId}@${mode.mode}@`,
        scenario: scenario.scenario_id,
        processor: processorId,
        mode: mode.mode,
        parts: [
          { name: scenario.scenario_id, description: scenario.description },
          { name: processorId, description: processor?.description ?? '' },
          { name: mode.mode, description: mode.description },
        ],
      }));
    }),
  );
}

/** Every route there is, from `GET /v1/combo/scenarios` and `GET /v1/combo/processors`. */
export function useRoutes() {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'routes'], queryFn: () => fetchRoutes(client), staleTime: 5 * 60_000 });
}
