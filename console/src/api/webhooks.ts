/**
 * Data hooks of the Webhooks section: subscriptions (create, edit, rotate the secret, send a test,
 * delete), the delivery log and one delivery (refreshed while it is pending), the dead-letter queue
 * and its replays, and historical replays by time range (polled until they end). Admins only: the
 * API answers a member 10003, shown as it is.
 */
import type {
  CreateWebhookSubscriptionRequest,
  DeliveryStatus,
  RotateWebhookSecretRequest,
  UpdateWebhookSubscriptionRequest,
  WebhookDelivery,
  WebhookReplayRequest,
  WebhookSubscription,
} from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['webhooks'] as const;
const SUBSCRIPTIONS = [...KEY, 'subscriptions'] as const;
const DELIVERIES = [...KEY, 'deliveries'] as const;
const DEAD_LETTERS = [...KEY, 'dead-letters'] as const;

/** How often a pending delivery, and a running replay, are asked again. */
const PENDING_REFRESH_MS = 1_000;

export function useSubscriptions() {
  const client = useApi();
  return usePagedList<WebhookSubscription>(SUBSCRIPTIONS, (page) => client.webhooks.subscriptions.list(page));
}

/** Up to 100 subscriptions (the API's largest page), to pick one in a filter and to show a delivery's URL. */
export function useSubscriptionChoices() {
  const client = useApi();
  return useQuery({
    queryKey: [...SUBSCRIPTIONS, 'choices'],
    queryFn: async () => {
      const page = await client.webhooks.subscriptions.list({ page: 1, page_size: 100 });
      return { items: page.items, total: page.total };
    },
  });
}

export function useSubscription(subscriptionId: string) {
  const client = useApi();
  return useQuery({
    queryKey: [...SUBSCRIPTIONS, 'one', subscriptionId],
    queryFn: () => client.webhooks.subscriptions.get(subscriptionId),
  });
}

export function useCreateSubscription() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateWebhookSubscriptionRequest) => client.webhooks.subscriptions.create(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS }),
  });
}

export function useUpdateSubscription(subscriptionId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateWebhookSubscriptionRequest) => client.webhooks.subscriptions.update(subscriptionId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS }),
  });
}

export function useRotateSecret(subscriptionId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RotateWebhookSecretRequest) => client.webhooks.subscriptions.rotateSecret(subscriptionId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS }),
  });
}

/** `POST .../test`: a `webhook.test` event to this subscription alone; answers the new delivery. */
export function useTestSubscription(subscriptionId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.webhooks.subscriptions.test(subscriptionId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: DELIVERIES }),
  });
}

export function useDeleteSubscription() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (subscriptionId: string) => client.webhooks.subscriptions.delete(subscriptionId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SUBSCRIPTIONS }),
  });
}

/** The filters `GET /v1/webhook/deliveries` offers. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  subscription_id?: string;
  event_id?: string;
  /** An event name (`webhook.test` included). */
  event?: string;
  /** ISO 8601 bounds on the creation time, [since, until). */
  since?: string;
  until?: string;
}

/** Which dead letters to list: those still to handle (not replayed by hand), those replayed, or all. */
export type DeadLetterView = 'to-handle' | 'replayed' | 'all';
const REPLAYED_OF: Record<DeadLetterView, boolean | undefined> = { 'to-handle': false, replayed: true, all: undefined };

export function useDeliveries(filter: DeliveryFilter) {
  const client = useApi();
  return usePagedList<WebhookDelivery>([...DELIVERIES, 'list', filter], (page) => client.webhooks.deliveries.list({ ...page, ...filter }));
}

/**
 * One delivery with every attempt, asked again every second while it is pending. One that ends dead
 * (a replay that failed again) is a new dead letter: the dead-letter lists are read again.
 */
export function useDelivery(deliveryId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  const delivery = useQuery({
    queryKey: [...DELIVERIES, 'one', deliveryId],
    queryFn: () => client.webhooks.deliveries.get(deliveryId),
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? PENDING_REFRESH_MS : false),
  });
  const status = delivery.data?.status;
  const seen = useRef({ deliveryId, status });
  useEffect(() => {
    const before = seen.current;
    if (status === 'dead' && before.deliveryId === deliveryId && before.status === 'pending')
      void queryClient.invalidateQueries({ queryKey: DEAD_LETTERS });
    seen.current = { deliveryId, status };
  }, [deliveryId, status, queryClient]);
  return delivery;
}

export function useDeadLetters(view: DeadLetterView) {
  const client = useApi();
  const replayed = REPLAYED_OF[view];
  return usePagedList<WebhookDelivery>([...DEAD_LETTERS, view], (page) =>
    client.webhooks.deadLetters.list({ ...page, ...(replayed === undefined ? {} : { replayed }) }),
  );
}

/** Replays one dead letter: a fresh delivery of the same event (replaying it twice answers the same replay). */
export function useReplayDeadLetter() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) => client.webhooks.deadLetters.replay(deliveryId),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useStartReplay() {
  const client = useApi();
  return useMutation({ mutationFn: (body: WebhookReplayRequest) => client.webhooks.replays.create(body) });
}

/** A historical replay's progress, asked again every second while it runs. */
export function useReplay(replayId: string) {
  const client = useApi();
  return useQuery({
    queryKey: [...KEY, 'replays', replayId],
    queryFn: () => client.webhooks.replays.get(replayId),
    refetchInterval: (query) =>
      query.state.status !== 'error' && query.state.data?.status !== 'completed' && query.state.data?.status !== 'failed'
        ? PENDING_REFRESH_MS
        : false,
  });
}
