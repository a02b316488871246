import { z } from 'zod';
import { isoDate, pageOf, resourceId } from './common';

/** `admin` may manage keys and replay events; `member` may use every other endpoint of its tenant. */
const role = z.enum(['admin', 'member']).meta({ id: 'Role' });

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    role: role.default('member'),
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
export const apiKeyParams = z.object({ key_id: resourceId('key', 'API key id') }).strict();

export type Role = z.infer<typeof role>;
export type ApiKey = z.infer<typeof apiKey>;
