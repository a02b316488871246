/**
 * Data hooks of Automations → cron jobs: the paged list, one job (watched closely while its runs
 * start), create, pause / resume, run now, backfill, delete.
 */
import type { BackfillCronJobRequest, CreateCronJobRequest, CronJob, UpdateCronJobRequest } from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['automations', 'cron'] as const;

/** Next run times move on: the list is read again every half minute. */
const LIST_REFRESH_MS = 30_000;

export function useCronJobs() {
  const client = useApi();
  return usePagedList<CronJob>([...KEY, 'list'], (page) => client.cronJobs.list(page));
}

/** Reads the list again every half minute while shown (next run times move on, runs start). */
export function useCronListRefresh() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const timer = setInterval(() => void queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] }), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [queryClient]);
}

/** One job, read again after `refreshMs(job)` milliseconds (quickly while its runs start, slowly otherwise). */
export function useCronJob(cronId: string, refreshMs: (job: CronJob | undefined) => number) {
  const client = useApi();
  return useQuery({
    queryKey: [...KEY, 'one', cronId],
    queryFn: () => client.cronJobs.get(cronId),
    refetchInterval: (query) => refreshMs(query.state.data),
  });
}

function useJobChange<Variables, Result>(
  mutationFn: (variables: Variables) => Promise<Result>,
  cronIdOf: (variables: Variables) => string,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: (_result, variables) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: [...KEY, 'one', cronIdOf(variables)] }),
        queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] }),
      ]),
  });
}

export function useCreateCronJob() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateCronJobRequest) => client.cronJobs.create(body),
    onSuccess: (job) => {
      queryClient.setQueryData([...KEY, 'one', job.cron_id], job);
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

/** Changes a job's settings in place. */
export function useUpdateCronJob() {
  const client = useApi();
  return useJobChange(
    ({ cronId, body }: { cronId: string; body: UpdateCronJobRequest }) => client.cronJobs.update(cronId, body),
    (variables) => variables.cronId,
  );
}

export function useSetCronPaused() {
  const client = useApi();
  return useJobChange(
    ({ cronId, paused }: { cronId: string; paused: boolean }) => client.cronJobs.update(cronId, { paused }),
    (variables) => variables.cronId,
  );
}

export function useRunCronNow() {
  const client = useApi();
  return useJobChange(
    (cronId: string) => client.cronJobs.trigger(cronId),
    (cronId) => cronId,
  );
}

export function useBackfillCron() {
  const client = useApi();
  return useJobChange(
    ({ cronId, body }: { cronId: string; body: BackfillCronJobRequest }) => client.cronJobs.backfill(cronId, body),
    (variables) => variables.cronId,
  );
}

export function useDeleteCronJob() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (cronId: string) => client.cronJobs.delete(cronId),
    onSuccess: (_deleted, cronId) => {
      queryClient.removeQueries({ queryKey: [...KEY, 'one', cronId] });
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}
