/** Data hooks of the Overview page: readiness, runs of the last hour, dead deliveries, tokens today. */
import { type Combo, InternalServerError } from '@combo/client';
import { useQuery } from '@tanstack/react-query';
import { useApi } from './client';

export interface Check {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

export interface ReadinessState {
  ready: boolean;
  checks: Record<string, Check>;
  /** The API's message when not ready ("not ready: worker unavailable"). */
  message?: string;
  checkedAt: number;
}

const REFRESH_MS = 15_000;

/** `GET /v1/ready`: its 503 (20001 with `data.checks`) is an answer too, "not ready". */
export function useReadiness() {
  const client = useApi();
  return useQuery({
    queryKey: ['overview', 'readiness'],
    queryFn: async (): Promise<ReadinessState> => {
      try {
        const ready = await client.service.ready();
        return { ready: true, checks: ready.checks, checkedAt: Date.now() };
      } catch (error) {
        const checks = error instanceof InternalServerError ? error.data.checks : undefined;
        if (typeof checks !== 'object' || checks === null) throw error;
        return { ready: false, checks: checks as Record<string, Check>, message: (error as Error).message, checkedAt: Date.now() };
      }
    },
    refetchInterval: REFRESH_MS,
  });
}

/** Runs created in the last hour across the tenant, and how many of them failed (`GET /v1/combo/completions`). */
export function useRunsLastHour() {
  const client = useApi();
  return useQuery({
    queryKey: ['overview', 'runs-last-hour'],
    queryFn: async () => {
      const since = new Date(Date.now() - 3_600_000).toISOString();
      const [all, failed] = await Promise.all([
        client.runs.list({ since, page_size: 1 }),
        client.runs.list({ since, status: 'failed', page_size: 1 }),
      ]);
      return { runs: all.total, failed: failed.total };
    },
    refetchInterval: REFRESH_MS * 2,
  });
}

/** Deliveries in the dead-letter queue (admins only: a member's 10003 is shown as such). */
export function useDeadDeliveries() {
  const client = useApi();
  return useQuery({
    queryKey: ['overview', 'dead-deliveries'],
    queryFn: async () => (await client.webhooks.deadLetters.list({ page_size: 1, replayed: false })).total,
    refetchInterval: REFRESH_MS * 2,
  });
}

/** The current period's summary (with its threshold) and today's (UTC) tokens and runs, from one `GET /v1/costs?group_by=day`. */
async function fetchCostsToday(client: Combo, now = new Date()) {
  const day = now.toISOString().slice(0, 10);
  const tomorrow = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
  const report = await client.costs.get({ group_by: 'day', since: day, until: tomorrow });
  // Days without runs are left out of the groups.
  const group = report.groups?.find((g) => 'day' in g && g.day === day);
  return { summary: report, today: { day, tokens: group?.tokens ?? 0, runs: group?.runs ?? 0 } };
}

/** The current period's costs (with its threshold) and today's tokens (`GET /v1/costs?group_by=day`). */
export function useCosts() {
  const client = useApi();
  return useQuery({
    queryKey: ['overview', 'costs'],
    queryFn: () => fetchCostsToday(client),
    refetchInterval: REFRESH_MS * 2,
  });
}
