import { apiKey, apiKeyPage, apiKeyParams, createApiKeyBody, createdApiKey } from '../../common/schemas/api-keys';
import { pageQuery } from '../../common/schemas/common';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'API keys';

export const apiKeyRoutes = ({ apiKeys, auth }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/api-keys',
    operationId: 'createApiKey',
    tag,
    access: 'admin',
    summary: 'Create an API key',
    description: 'The key is in this reply only; the service stores a hash of it.',
    body: createApiKeyBody,
    response: createdApiKey,
    handler: ({ principal, body }) => apiKeys.create(principal.tenantId, body),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/api-keys',
    operationId: 'listApiKeys',
    tag,
    access: 'admin',
    summary: "List the tenant's API keys (never their secrets)",
    query: pageQuery,
    response: apiKeyPage,
    handler: ({ principal, query }) => apiKeys.list(principal.tenantId, query),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/api-keys/{key_id}',
    operationId: 'revokeApiKey',
    tag,
    access: 'admin',
    summary: 'Revoke an API key',
    description: 'Takes effect at once on this API process and within AUTH_CACHE_TTL_MS (default 5 s) on the others.',
    params: apiKeyParams,
    response: apiKey,
    handler: async ({ principal, params }) => {
      const revoked = await apiKeys.revoke(principal.tenantId, params.key_id);
      auth.forgetCachedKeys();
      return revoked;
    },
  }),
];
