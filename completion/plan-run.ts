import type { Agent } from '../common/schemas/agents';
import { modelToolName } from '../common/schemas/skills';
import type { ChatMessage } from '../common/chat-model';
import { BUILTIN_TOOLS, isBuiltinTool } from './builtin-tools';
import { IMPORT_INSTRUCTIONS } from './import-items';
import { REVIEW_INSTRUCTIONS } from './review-report';
import { DEFAULT_ROUTE, offlineRouteFor, parseRoute, PROCESSORS } from './route-catalog';
import type { BoundTool, RunRoute, SkillToolDefinition } from './run-input';

/** What planning needs of an active skill. */
export interface ActiveSkill {
  skill_id: string;
  name: string;
  version: string;
  instructions: string;
  tools: SkillToolDefinition[];
}

const MODE_GUIDANCE: Record<string, string> = {
  concise: 'Answer briefly: at most three sentences unless a list is unavoidable.',
  detailed: 'Answer thoroughly, with headings or lists where they help, and explain your reasoning.',
};

/**
 * The route a run takes: the request's, else the agent's default, else plain chat. Without a
 * configured model, a route whose processor needs one is answered by the offline mode.
 */
export function resolveRoute(
  requested: string | undefined,
  agentDefault: string | null,
  modelConfigured: boolean,
): { route: RunRoute; offline: boolean } {
  const parsed = parseRoute(requested ?? agentDefault ?? DEFAULT_ROUTE);
  const text = `@${parsed.scenario}@${parsed.processor}@${parsed.mode}@`;
  const usesModel = PROCESSORS.find((p) => p.processor_id === parsed.processor)?.uses_model ?? false;
  if (usesModel && !modelConfigured) {
    const offline = parseRoute(offlineRouteFor(text));
    return { route: { ...offline, text: `@${offline.scenario}@${offline.processor}@${offline.mode}@`, usesModel: false }, offline: true };
  }
  return { route: { ...parsed, text, usesModel }, offline: false };
}

/** The system prompt: the agent's instructions, each active skill's, then the scenario's and mode's guidance. */
export function systemPromptFor(agent: Pick<Agent, 'instructions'>, skills: ActiveSkill[], route: RunRoute): string {
  const parts = [agent.instructions.trim()];
  for (const skill of skills) {
    if (skill.instructions.trim()) parts.push(`## Skill: ${skill.name} ${skill.version}\n${skill.instructions.trim()}`);
  }
  if (route.usesModel && route.scenario === 'review') parts.push(REVIEW_INSTRUCTIONS);
  if (route.usesModel && route.scenario === 'import') parts.push(IMPORT_INSTRUCTIONS);
  if (MODE_GUIDANCE[route.mode]) parts.push(MODE_GUIDANCE[route.mode]!);
  return parts.filter(Boolean).join('\n\n');
}

/**
 * The tools a run offers: the agent's listed built-ins (all applicable ones in the `agent`
 * scenario) and every tool of the active skills.
 */
export function toolsFor(
  agent: Pick<Agent, 'tools' | 'kb_ids'>,
  skills: ActiveSkill[],
  route: RunRoute,
  hasAttachments: boolean,
): BoundTool[] {
  if (!route.usesModel) return [];
  const builtins = new Set(agent.tools.filter(isBuiltinTool));
  if (route.scenario === 'agent') {
    builtins.add('current_time');
    if (agent.kb_ids.length > 0) builtins.add('search_knowledge');
    if (hasAttachments) builtins.add('read_attachment');
  }
  const tools: BoundTool[] = [...builtins].map((name) => BUILTIN_TOOLS[name]);
  for (const skill of skills) {
    for (const tool of skill.tools) {
      tools.push({
        spec: { name: modelToolName(skill.name, tool.name), description: tool.description, parameters: tool.parameters },
        binding: { kind: 'http', skillId: skill.skill_id, skillName: skill.name, tool },
      });
    }
  }
  return tools;
}

/**
 * The MCP servers whose tools a run lists: the agent's, in a route that calls a model, less any
 * named as an active skill (a skill activated on the session after the agent was saved): their
 * tools would take the skill tools' names (common/schemas/mcp-servers.ts).
 */
export function mcpServersFor(agent: Pick<Agent, 'mcp_servers'>, skills: Array<Pick<ActiveSkill, 'name'>>, route: RunRoute): string[] {
  if (!route.usesModel) return [];
  const skillNames = new Set(skills.map((s) => s.name));
  return agent.mcp_servers.map((s) => s.name).filter((name) => !skillNames.has(name));
}

/** Session turns as chat messages. */
export const historyMessages = (turns: Array<{ role: 'user' | 'assistant' | 'system'; content: string }>): ChatMessage[] =>
  turns.map((t) => ({ role: t.role, content: t.content }));
