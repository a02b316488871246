/**
 * Data hooks of the Costs section: the current period's summary and threshold (`GET /v1/costs`),
 * the tenant's costs per UTC day and per agent over a range (with `group_by`, `since`, `until`), the
 * names of the agents that ran, and setting the threshold.
 */
import { type CostGroupByAgent, type CostGroupByDay, NotFoundError, type SetCostThresholdRequest } from '@combo/client';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './client';

const KEY = ['costs'] as const;

/** A range of UTC days, `YYYY-MM-DD`: `since` inclusive, `until` exclusive (as the API takes them). */
export interface CostRange {
  since: string;
  until: string;
}

/** The current period's tokens, runs and run time, and its threshold. */
export function useCostSummary() {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'summary'], queryFn: () => client.costs.get() });
}

/** Costs of the range by UTC day (days without runs left out) and by agent (most tokens first). */
export function useCostGroups(range: CostRange) {
  const client = useApi();
  return useQuery({
    queryKey: [...KEY, 'groups', range],
    queryFn: async () => {
      const [byDay, byAgent] = await Promise.all([
        client.costs.get({ group_by: 'day', ...range }),
        client.costs.get({ group_by: 'agent', ...range }),
      ]);
      return {
        days: (byDay.groups ?? []).filter((g): g is CostGroupByDay => 'day' in g),
        agents: (byAgent.groups ?? []).filter((g): g is CostGroupByAgent => 'agent_id' in g),
      };
    },
  });
}

/** The names of these agents (`GET /v1/combo/agents/{id}`); null for an agent that no longer exists. */
export function useAgentNames(agentIds: string[]): Map<string, string | null> {
  const client = useApi();
  const results = useQueries({
    queries: agentIds.map((agentId) => ({
      queryKey: [...KEY, 'agent-name', agentId],
      queryFn: async (): Promise<string | null> => {
        try {
          return (await client.agents.get(agentId)).name;
        } catch (error) {
          if (error instanceof NotFoundError) return null;
          throw error;
        }
      },
      staleTime: 5 * 60_000,
    })),
  });
  const names = new Map<string, string | null>();
  agentIds.forEach((agentId, i) => {
    const result = results[i];
    if (result?.data !== undefined) names.set(agentId, result.data);
  });
  return names;
}

export function useSetThreshold() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    /** A threshold (or null: none), or 'default': the tenant's own is forgotten and the installation's applies. */
    mutationFn: (change: SetCostThresholdRequest | 'default') =>
      change === 'default' ? client.costs.resetThreshold() : client.costs.setThreshold(change),
    onSuccess: async () => {
      // The overview shows the threshold too.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: KEY }),
        queryClient.invalidateQueries({ queryKey: ['overview', 'costs'] }),
      ]);
    },
  });
}
