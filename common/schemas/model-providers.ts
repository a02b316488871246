import { z } from 'zod';
import { MODEL_PROVIDER_KINDS } from '../model-provider';
import { httpUrlText, isoDate, pageOf, resourceId } from './common';

const providerId = resourceId('mp', 'model provider id');

/** Bounds of one provider: its headers and the models it offers. */
const MAX_PROVIDER_HEADERS = 16;
const MAX_OFFERED_MODELS = 100;
/** The most any model may cost per million tokens, in the tenant's currency units (a typo guard, far above any price). */
const MAX_PRICE_PER_MILLION = 100_000;

const providerKind = z.enum(MODEL_PROVIDER_KINDS).meta({
  id: 'ModelProviderKind',
  description:
    'the API the provider speaks: `openai`, `anthropic`, `google` (Gemini), or `openai-compatible` (the OpenAI chat completions ' +
    'API of Ollama, vLLM, LM Studio, LiteLLM and the like: `base_url` required)',
});

const baseUrl = httpUrlText.meta({
  description:
    "the API's base URL (http or https, no credentials), e.g. `http://ollama:11434/v1`. Required for `openai-compatible`; for the " +
    "other kinds absent means the vendor's own API. Private, loopback and reserved addresses are refused (10001) unless the " +
    'installation sets ALLOW_PRIVATE_URLS or lists the host in MODEL_PROVIDER_PRIVATE_HOSTS',
  example: 'https://api.openai.com/v1',
});

const apiKey = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .meta({ description: 'the key the provider is called with; stored encrypted and never shown again (only `api_key_last4`)' });

/** Header names the HTTP client sets itself. */
const TRANSPORT_HEADER = /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|te|trailer|accept-encoding)$/i;

const headers = z
  .record(
    z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'header names are 1-64 token characters'),
    z
      .string()
      .max(2000)
      .regex(/^[\t\x20-\x7e]*$/, 'header values are printable ASCII'),
  )
  .superRefine((h, ctx) => {
    const names = Object.keys(h);
    if (names.length > MAX_PROVIDER_HEADERS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_PROVIDER_HEADERS} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      if (TRANSPORT_HEADER.test(name))
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not allowed: the client sets transport headers itself' });
      if (seen.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [name], message: 'is given twice (names ignore case)' });
      seen.add(name.toLowerCase());
    }
  })
  .meta({
    description:
      `extra request headers sent on every call (an organization, a gateway's routing key), at most ${MAX_PROVIDER_HEADERS}. ` +
      'Their values may be secrets: stored encrypted and never shown again (only `header_names`). Transport headers ' +
      '(Host, Content-Type, Content-Length, ...) are refused',
  });

const price = z
  .number()
  .min(0)
  .max(MAX_PRICE_PER_MILLION)
  .optional()
  .meta({ description: `price per million tokens in the tenant's currency units (0-${MAX_PRICE_PER_MILLION}); absent: unknown` });

const offeredModel = z
  .object({
    id: z.string().trim().min(1).max(200).meta({ description: "the model's name at the provider, as an agent's `model.model` names it" }),
    input_price_per_million: price,
    output_price_per_million: price,
  })
  .strict()
  .meta({ id: 'OfferedModel' });

const offeredModels = z
  .array(offeredModel)
  .min(1)
  .max(MAX_OFFERED_MODELS)
  .refine((models) => new Set(models.map((m) => m.id)).size === models.length, 'model ids must not repeat')
  .meta({
    description: `the models agents may use with this provider (1-${MAX_OFFERED_MODELS}); the first is used by agents that name the provider and no model`,
  });

const providerName = z.string().trim().min(1).max(100).meta({ description: 'a label, unique in the tenant (10005 otherwise)' });

const baseUrlRequired = {
  message: 'is required for kind openai-compatible',
  path: ['base_url'],
};

export const createProviderBody = z
  .object({
    name: providerName,
    kind: providerKind,
    base_url: baseUrl.optional(),
    api_key: apiKey.optional(),
    headers: headers.default({}),
    models: offeredModels,
  })
  .strict()
  .refine((b) => b.kind !== 'openai-compatible' || b.base_url !== undefined, baseUrlRequired)
  .meta({ id: 'CreateModelProviderRequest' });

/**
 * PUT replaces the fields it names and keeps the others; at least one field is required.
 * `api_key: null` and `base_url: null` remove them; `headers` and `models` replace the whole set.
 */
export const updateProviderBody = z
  .object({
    name: providerName,
    kind: providerKind,
    // Unions, not .nullable(), as agents' `approval`: client generators refuse the allOf a nullable component becomes.
    base_url: z.union([baseUrl, z.null()]).meta({ description: 'a new base URL; null removes it (not for `openai-compatible`)' }),
    api_key: z.union([apiKey, z.null()]).meta({ description: 'a new key (stored encrypted, never shown again); null removes it' }),
    headers: headers.meta({ description: 'replaces every header; `{}` removes them all' }),
    models: offeredModels,
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field to update')
  .meta({ id: 'UpdateModelProviderRequest' });

export const modelProvider = z
  .object({
    provider_id: providerId,
    name: z.string(),
    kind: providerKind,
    base_url: z.string().nullable().meta({ description: "null: the vendor's own API" }),
    api_key_last4: z.string().nullable().meta({
      description:
        'last four characters of the key, to tell keys apart (`****` for a key under 12 characters, which would show most of it); null when there is none',
    }),
    header_names: z.array(z.string()).meta({ description: 'the names of the extra headers (their values are never shown)' }),
    models: z.array(offeredModel),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'ModelProvider' });

export const checkProviderBody = z
  .object({
    model: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "the offered model to call (10001 if the provider does not offer it); default: the provider's first" }),
  })
  .strict()
  .meta({ id: 'CheckModelProviderRequest' });

export const providerCheck = z
  .object({
    ok: z.literal(true),
    latency_ms: z.number().int().meta({ description: 'how long the call took, request to full answer' }),
    model: z.string().meta({ description: 'the model called' }),
  })
  .meta({ id: 'ModelProviderCheck' });

export const modelProviderPage = pageOf(modelProvider, 'ModelProviderPage');
export const providerParams = z.object({ provider_id: providerId }).strict();

export type CreateProviderBody = z.infer<typeof createProviderBody>;
export type UpdateProviderBody = z.infer<typeof updateProviderBody>;
export type ModelProvider = z.infer<typeof modelProvider>;
export type ProviderCheck = z.infer<typeof providerCheck>;
