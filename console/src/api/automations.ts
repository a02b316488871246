/**
 * Data hooks of Automations → integrations (list, create, rotate, delete), and the pickers the
 * trigger and cron forms share (agents, integrations of a channel, session templates).
 */
import type { Agent, CreateIntegrationRequest, Integration } from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './client';
import { usePagedList } from './paging';

const INTEGRATIONS = ['automations', 'integrations'] as const;

/** The most a picker lists (the API's largest page); more are reached by typing the id. */
export const PICKER_PAGE = 100;

export function useIntegrations(name?: string) {
  const client = useApi();
  return usePagedList<Integration>([...INTEGRATIONS, 'list', name ?? null], (page) =>
    client.integrations.list({ ...page, ...(name ? { name } : {}) }),
  );
}

export function useCreateIntegration() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateIntegrationRequest) => client.integrations.create(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INTEGRATIONS }),
  });
}

export function useRotateIntegration() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ integrationId, graceSeconds }: { integrationId: string; graceSeconds: number }) =>
      client.integrations.rotateSecret(integrationId, { grace_seconds: graceSeconds }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INTEGRATIONS }),
  });
}

export function useDeleteIntegration() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (integrationId: string) => client.integrations.delete(integrationId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INTEGRATIONS }),
  });
}

/** The integrations a trigger may name (admins only: a member's 10003 is the query's error). */
export function useIntegrationChoices() {
  const client = useApi();
  return useQuery({
    queryKey: [...INTEGRATIONS, 'choices'],
    queryFn: () => client.integrations.list({ page_size: PICKER_PAGE }),
    retry: false,
  });
}

/** The newest agents, for the forms' agent pickers. */
export function useAgentChoices() {
  const client = useApi();
  return useQuery({
    queryKey: ['automations', 'agent-choices'],
    queryFn: async (): Promise<{ items: Agent[]; total: number }> => {
      const page = await client.agents.list({ page_size: PICKER_PAGE });
      return { items: page.items, total: page.total };
    },
  });
}

/** The session templates a trigger or cron job may name (`GET /v1/event-trigger/templates`). */
export function useSessionTemplates() {
  const client = useApi();
  return useQuery({
    queryKey: ['automations', 'session-templates'],
    queryFn: async () => (await client.eventTriggers.templates()).items,
    staleTime: Infinity,
  });
}
