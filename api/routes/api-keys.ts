import { forbidden } from '../../common/errors';
import { apiKey, apiKeyPage, apiKeyParams, createApiKeyBody, createdApiKey, listApiKeysQuery } from '../../common/schemas/api-keys';
import type { Principal } from '../auth';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'API keys';

/** Keys are personal: a member sees and revokes its own; an admin every key of the tenant. */
const visibleOwner = (principal: Principal, asked?: string) => (principal.role === 'admin' ? asked : principal.ownerId);

export const apiKeyRoutes = ({ apiKeys, auth }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/api-keys',
    operationId: 'createApiKey',
    tag,
    summary: 'Create an API key',
    description:
      'The key is in this reply only; the service stores a hash of it. The key belongs to the caller (its key owner or JWT subject); ' +
      'an admin may create one for another user with `owner_id`. A key has at most the role of its creator (a member asking for `admin`: 10003).',
    body: createApiKeyBody,
    response: createdApiKey,
    handler: ({ principal, body }) => {
      if (principal.role !== 'admin') {
        if (body.role === 'admin') throw forbidden('a member cannot create an admin key');
        if (body.owner_id !== undefined && body.owner_id !== principal.ownerId)
          throw forbidden('only an admin may create keys for another user');
      }
      return apiKeys.create(principal.tenantId, body.owner_id ?? principal.ownerId, body);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/api-keys',
    operationId: 'listApiKeys',
    tag,
    summary: 'List API keys (never their secrets): your own, or every key of the tenant for an admin',
    description:
      "A member sees only its own keys (`owner_id` other than its own answers an empty page); an admin sees every key, or one user's with `owner_id`.",
    query: listApiKeysQuery,
    response: apiKeyPage,
    handler: ({ principal, query: { owner_id, ...page } }) => {
      if (principal.role !== 'admin' && owner_id !== undefined && owner_id !== principal.ownerId) {
        return { items: [], total: 0, page: page.page, page_size: page.page_size, next_cursor: null };
      }
      return apiKeys.list(principal.tenantId, { ownerId: visibleOwner(principal, owner_id) }, page);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/api-keys/{key_id}',
    operationId: 'revokeApiKey',
    tag,
    summary: 'Revoke an API key (your own, or any key of the tenant for an admin)',
    description:
      "Takes effect at once on this API process and within AUTH_CACHE_TTL_MS (default 5 s) on the others; console tokens exchanged for the key stop working with it. A member naming another user's key: 10004.",
    params: apiKeyParams,
    response: apiKey,
    handler: async ({ principal, params }) => {
      const revoked = await apiKeys.revoke(principal.tenantId, params.key_id, { ownerId: visibleOwner(principal) });
      auth.forgetCachedKeys();
      return revoked;
    },
  }),
];
