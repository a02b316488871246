/** Data hooks of Automations → event triggers: the paged list, one trigger, create, update, delete, preview. */
import type { CreateEventTriggerRequest, EventTrigger, EventTriggerPreviewRequest, UpdateEventTriggerRequest } from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['automations', 'triggers'] as const;

export function useTriggers() {
  const client = useApi();
  return usePagedList<EventTrigger>([...KEY, 'list'], (page) => client.eventTriggers.list(page));
}

export function useTrigger(triggerId: string) {
  const client = useApi();
  return useQuery({ queryKey: [...KEY, 'one', triggerId], queryFn: () => client.eventTriggers.get(triggerId) });
}

export function useCreateTrigger() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateEventTriggerRequest) => client.eventTriggers.create(body),
    onSuccess: (trigger) => {
      queryClient.setQueryData([...KEY, 'one', trigger.trigger_id], trigger);
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

export function useUpdateTrigger() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ triggerId, body }: { triggerId: string; body: UpdateEventTriggerRequest }) =>
      client.eventTriggers.update(triggerId, body),
    onSuccess: (trigger) => {
      queryClient.setQueryData([...KEY, 'one', trigger.trigger_id], trigger);
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

export function useDeleteTrigger() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (triggerId: string) => client.eventTriggers.delete(triggerId),
    onSuccess: (_deleted, triggerId) => {
      queryClient.removeQueries({ queryKey: [...KEY, 'one', triggerId] });
      return queryClient.invalidateQueries({ queryKey: [...KEY, 'list'] });
    },
  });
}

/** `POST /v1/event-trigger/preview`: nothing is started or stored. */
export function usePreviewTrigger() {
  const client = useApi();
  return useMutation({ mutationFn: (body: EventTriggerPreviewRequest) => client.eventTriggers.preview(body) });
}
