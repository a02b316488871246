/** Data hooks of Skills: the paged list, one skill, install, delete, and activation on a session (with the agent's sessions to pick from). */
import type { InstallSkillRequest, Session, Skill } from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { PICKER_PAGE } from './automations';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['skills'] as const;

export function useSkills(name?: string) {
  const client = useApi();
  return usePagedList<Skill>([...KEY, 'list', name ?? null], (page) => client.skills.list({ ...page, ...(name ? { name } : {}) }));
}

export function useSkill(skillId: string) {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'one', skillId], queryFn: () => client.skills.get(skillId) });
}

export function useInstallSkill() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: InstallSkillRequest) => client.skills.install(body),
    onSuccess: (skill) => {
      queryClient.setQueryData([...KEY, 'one', skill.skill_id], skill);
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

export function useDeleteSkill() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (skillId: string) => client.skills.delete(skillId),
    onSuccess: (_deleted, skillId) => {
      queryClient.removeQueries({ queryKey: [...KEY, 'one', skillId] });
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

export function useActivateSkill() {
  const client = useApi();
  return useMutation({
    mutationFn: ({ skillId, sessionId }: { skillId: string; sessionId: string }) =>
      client.skills.activate(skillId, { session_id: sessionId }),
  });
}

/** An agent's newest sessions, to pick one to activate a skill on (none until an agent is chosen). */
export function useSessionChoices(agentId: string) {
  const client = useApi();
  return useQuery({
    queryKey: [...KEY, 'session-choices', agentId],
    queryFn: async (): Promise<{ items: Session[]; total: number }> => {
      const page = await client.sessions.list(agentId, { page_size: PICKER_PAGE });
      return { items: page.items, total: page.total };
    },
    enabled: agentId !== '',
  });
}
