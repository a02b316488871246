import { z } from 'zod';
import { isoDate, pageOf, pageQuery, resourceId } from './common';

/** `admin` may manage every key and replay events; `member` may use every other endpoint of its tenant and manage its own keys. */
const role = z.enum(['admin', 'member']).meta({ id: 'Role' });

const ownerId = z
  .string()
  .min(1)
  .max(200)
  .refine((v) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), 'must not contain control characters')
  .meta({ description: 'the user the key belongs to: the API key owner or the JWT subject of whoever created it' });

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: role.default('member').meta({ description: 'at most the role of the caller: a member cannot create an admin key' }),
    owner_id: ownerId.optional().meta({
      description: 'admins only: create the key for another user of the tenant. Default: the caller (its key owner or JWT subject)',
    }),
    expires_at: z.iso
      .datetime({ offset: true })
      .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
      .optional()
      .meta({ description: 'ISO 8601; the key stops working then' }),
  })
  .strict()
  .meta({ id: 'CreateApiKeyRequest' });

export const apiKey = z
  .object({
    key_id: resourceId('key', 'API key id (public)'),
    owner_id: z.string().meta({
      description:
        'the user the key belongs to. Keys created before keys were personal (and the bootstrap key) own themselves: owner_id = key_id',
    }),
    name: z.string(),
    role,
    prefix: z.string().meta({ description: 'first characters of the key, to recognise it' }),
    created_at: isoDate,
    expires_at: isoDate.nullable(),
    revoked_at: isoDate.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKey = apiKey
  .extend({
    api_key: z.string().meta({ description: 'the secret key; shown only in this reply, stored hashed' }),
  })
  .meta({ id: 'CreatedApiKey' });

export const apiKeyPage = pageOf(apiKey, 'ApiKeyPage');
export const listApiKeysQuery = pageQuery
  .extend({ owner_id: ownerId.optional().meta({ description: 'admins only: the keys of this user (members always see only theirs)' }) })
  .strict();
export const apiKeyParams = z.object({ key_id: resourceId('key', 'API key id') }).strict();

export type Role = z.infer<typeof role>;
export type ApiKey = z.infer<typeof apiKey>;

export const consoleTokenBody = z.object({}).strict().meta({ id: 'ConsoleTokenRequest' });

export const consoleToken = z
  .object({
    token: z.string().meta({ description: 'the JWT: send it as `Authorization: Bearer <token>`; keep it in memory only' }),
    token_type: z.literal('Bearer'),
    expires_at: isoDate.meta({ description: 'the token stops working then (CONSOLE_TOKEN_TTL_S, never after the key expires)' }),
    expires_in: z.number().int().meta({ description: 'seconds until expires_at' }),
    tenant_id: z.string(),
    user_id: z.string().meta({ description: "the token's subject: the owner of the key it came from" }),
    roles: z.array(role),
    key_id: resourceId('key', 'the API key the token came from; revoking it ends the token'),
  })
  .meta({ id: 'ConsoleToken' });
