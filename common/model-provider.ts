/**
 * A model provider as the code that calls it sees it: what kind of API it speaks, where, with which
 * credentials, and the models it offers with their prices. Built from a tenant's stored provider
 * (its secrets opened) or from the installation's `LLM_*` settings (the default provider).
 */
export const MODEL_PROVIDER_KINDS = ['openai', 'anthropic', 'google', 'openai-compatible'] as const;
export type ModelProviderKind = (typeof MODEL_PROVIDER_KINDS)[number];

/** A model a provider offers; prices in the tenant's currency units per million tokens, when known. */
export interface OfferedModel {
  id: string;
  inputPricePerMillion?: number;
  outputPricePerMillion?: number;
}

export interface ProviderConnection {
  /** The tenant's provider, or null for the installation's default provider (`LLM_*`). */
  providerId: string | null;
  kind: ModelProviderKind;
  /** Required for `openai-compatible`; for the others, absent means the vendor's own API. */
  baseUrl?: string;
  apiKey?: string;
  /** Extra request headers (an organization, a gateway's routing key). */
  headers: Record<string, string>;
  models: OfferedModel[];
}
