import type { CreateSessionBody, Session, SessionListQuery } from '../common/schemas/sessions';
import type { AgentStore } from '../stores/agents';
import type { SessionStore } from '../stores/sessions';
import type { SkillStore } from '../stores/skills';

/** Sessions of an agent (10004 for an agent the tenant does not have); a deleted session takes its skill activations with it. */
export function createSessionCommands({
  agents,
  sessions,
  skills,
}: {
  agents: Pick<AgentStore, 'get'>;
  sessions: SessionStore;
  skills: Pick<SkillStore, 'forgetSession'>;
}) {
  return {
    /** Opened for `userId` (the body's `user_id`, else the caller); records `session.created`. */
    async create(tenantId: string, agentId: string, userId: string, body: CreateSessionBody): Promise<Session> {
      await agents.get(tenantId, agentId);
      return sessions.create(tenantId, agentId, userId, body);
    },

    async listOfAgent(tenantId: string, agentId: string, query: Omit<SessionListQuery, 'agent_id'>) {
      await agents.get(tenantId, agentId);
      return sessions.list(tenantId, { ...query, agent_id: agentId });
    },

    async remove(tenantId: string, sessionId: string): Promise<void> {
      await sessions.delete(tenantId, sessionId);
      await skills.forgetSession(tenantId, sessionId);
    },
  };
}
