import type { Config } from '../common/config';
import { AppError, ErrorCodes } from '../common/errors';
import type { Agent } from '../common/schemas/agents';
import type { AgentStore } from '../stores/agents';
import type { DocumentStore } from '../stores/documents';
import type { FileStore } from '../stores/files';
import type { ModelProviderStore } from '../stores/model-providers';
import type { SessionStore } from '../stores/sessions';
import type { SkillStore } from '../stores/skills';
import { type ActiveSkill, historyMessages, mcpServersFor, resolveRoute, systemPromptFor, toolsFor } from './plan-run';
import type { CompletionInput } from './run-input';

/**
 * What a completion's input is read from: the reads it needs of each store, no more, so that the
 * API's commands and the agent task's activity hand in their own stores alike.
 */
export interface PreparationDeps {
  config: Config;
  agents: Pick<AgentStore, 'get'>;
  sessions: Pick<SessionStore, 'getActive' | 'recentTurns'>;
  skills: Pick<SkillStore, 'activeForSession' | 'byIds'>;
  files: Pick<FileStore, 'assertExist'>;
  documents: Pick<DocumentStore, 'getDoc'>;
  modelProviders: Pick<ModelProviderStore, 'get'>;
}

export interface CompletionRequest {
  traceId: string;
  tenantId: string;
  agentId: string;
  sessionId: string;
  question: string;
  stream: boolean;
  route?: string;
  attachments: string[];
  contextIds: string[];
  /** The agent's read when the caller has started it already (it needs the agent too): not read again. */
  agentRead?: Promise<Agent>;
}

/** The session must exist in the tenant, belong to the agent and be active (archived: 10005). */
async function sessionOfAgent(services: PreparationDeps, tenantId: string, agentId: string, sessionId: string) {
  const session = await services.sessions.getActive(tenantId, sessionId);
  if (session.agent_id !== agentId) {
    throw new AppError(ErrorCodes.NOT_FOUND, `session ${sessionId} does not belong to agent ${agentId}`, {
      resource: 'session',
      id: sessionId,
    });
  }
  return session;
}

/** context_ids must be documents of the agent's knowledge bases (10004 otherwise). */
async function checkContextDocuments(services: PreparationDeps, tenantId: string, agent: Agent, docIds: string[]) {
  await Promise.all(
    [...new Set(docIds)].map(async (docId) => {
      const doc = await services.documents.getDoc(tenantId, docId);
      if (!agent.kb_ids.includes(doc.kb_id)) {
        throw new AppError(ErrorCodes.NOT_FOUND, `document ${docId} is not in the agent's knowledge bases`, {
          resource: 'document',
          id: docId,
        });
      }
    }),
  );
}

/** The agent's own skills and those activated on the session (read already); a skill removed since is skipped. */
async function activeSkills(
  services: PreparationDeps,
  tenantId: string,
  agent: Agent,
  sessionSkills: Promise<ActiveSkill[]>,
): Promise<ActiveSkill[]> {
  const [ofSession, ofAgent] = await Promise.all([sessionSkills, services.skills.byIds(tenantId, agent.skills)]);
  const byId = new Map<string, ActiveSkill>();
  for (const skill of [...ofAgent, ...ofSession]) byId.set(skill.skill_id, skill);
  return [...byId.values()];
}

/**
 * Checks a completion request against what it names and builds the workflow's input. Everything the
 * run reads of the agent, session and skills is read here, once, side by side.
 */
export async function prepareCompletionInput(services: PreparationDeps, request: CompletionRequest): Promise<CompletionInput> {
  const { config } = services;
  const { tenantId, agentId } = request;
  const agentRead = request.agentRead ?? services.agents.get(tenantId, agentId);
  // The session's skills do not depend on the agent: read beside it, not after it.
  const sessionSkills = services.skills.activeForSession(tenantId, request.sessionId);
  sessionSkills.catch(() => undefined);
  // The provider an agent names (its models): read beside the rest once the agent is known.
  const providerRead = agentRead.then((a) => (a.model.provider_id ? services.modelProviders.get(tenantId, a.model.provider_id) : null));
  const [agent, session, skills, turns, provider] = await Promise.all([
    agentRead,
    sessionOfAgent(services, tenantId, agentId, request.sessionId),
    agentRead.then((a) => activeSkills(services, tenantId, a, sessionSkills)),
    services.sessions.recentTurns(tenantId, request.sessionId, {
      maxMessages: config.HISTORY_MAX_MESSAGES,
      maxChars: config.HISTORY_MAX_CHARS,
    }),
    providerRead,
    services.files.assertExist(tenantId, request.attachments),
    agentRead.then((a) => checkContextDocuments(services, tenantId, a, request.contextIds)),
  ]);
  // An agent that names a provider always has a model; others have the installation's, if it has one.
  const { route, offline } = resolveRoute(request.route, agent.default_route, provider !== null || config.LLM_BASE_URL !== undefined);
  const mcpServers = mcpServersFor(agent, skills, route);
  return {
    traceId: request.traceId,
    tenantId,
    agentId,
    sessionId: session.session_id,
    userId: session.user_id,
    question: request.question,
    stream: request.stream,
    recordEvents: true,
    route,
    offline,
    model: route.usesModel
      ? {
          name: agent.model.model ?? provider?.models[0]?.id ?? config.LLM_MODEL,
          ...(provider ? { providerId: provider.provider_id } : {}),
          temperature: agent.model.temperature ?? config.LLM_TEMPERATURE,
          maxTokens: agent.model.max_tokens ?? config.LLM_MAX_TOKENS,
        }
      : null,
    systemPrompt: systemPromptFor(agent, skills, route),
    history: historyMessages(turns),
    tools: toolsFor(agent, skills, route, request.attachments.length > 0),
    ...(mcpServers.length > 0 ? { mcpServers } : {}),
    ...(agent.approval
      ? {
          approval: {
            tools: agent.approval.tools,
            timeoutMs: agent.approval.timeout_s * 1000,
            separateDuties: agent.approval.separate_duties ?? false,
          },
        }
      : {}),
    kbIds: agent.kb_ids,
    contextIds: request.contextIds,
    attachmentIds: request.attachments,
    limits: {
      maxSteps: config.COMPLETION_MAX_STEPS,
      maxTokens: config.COMPLETION_MAX_TOKENS,
      attachmentMaxChars: config.ATTACHMENT_MAX_CHARS,
      modelCallTimeoutMs: config.LLM_TIMEOUT_MS,
      modelAttempts: config.LLM_MAX_ATTEMPTS,
      runTimeoutMs: config.COMPLETION_RUN_TIMEOUT_MS,
      runTimeBoundAlways: true,
      historyMaxMessages: config.HISTORY_MAX_MESSAGES,
      historyMaxChars: config.HISTORY_MAX_CHARS,
    },
    requestedAt: Date.now(),
    firstSeq: 1,
  };
}
