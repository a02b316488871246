/** Data hooks of Personal settings → API keys: the paged list, create, revoke. */
import type { ApiKey, CreateApiKeyRequest } from '@combo/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from './client';
import { usePagedList } from './paging';

const KEY = ['api-keys'] as const;

export function useApiKeys(filter: { owner_id?: string }) {
  const client = useApi();
  return usePagedList<ApiKey>([...KEY, filter], (page) => client.apiKeys.list({ ...page, ...filter }));
}

export function useCreateApiKey() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateApiKeyRequest) => client.apiKeys.create(body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}

export function useRevokeApiKey() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) => client.apiKeys.revoke(keyId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
}
