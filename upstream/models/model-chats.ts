import type { RequestInit as UndiciRequestInit } from 'undici';
import type { ChatModelClient } from '../../common/chat-model';
import type { Config } from '../../common/config';
import { providerUrlAllowsPrivate } from '../../common/net/private-hosts';
import type { ProviderConnection } from '../../common/model-provider';
import { guardedFetch } from '../guarded-fetch';
import { createModelChatClient } from './model-chat';

/** A provider's chat client, with its connection (the models it offers and their prices). */
interface ProviderChat {
  client: ChatModelClient;
  connection: ProviderConnection;
}

/** The chat client of a run's model provider. */
export interface ModelChats {
  /**
   * The tenant's provider `providerId`, or the installation's default provider when absent (null
   * when the installation has none). A provider's changes reach new calls within the cache's time.
   */
  forProvider(tenantId: string, providerId: string | undefined): Promise<ProviderChat | null>;
  /** A client for a connection as given (the check of a provider before or after it is saved). */
  forConnection(connection: ProviderConnection): ChatModelClient;
}

export interface ModelChatsOptions {
  /** The installation's default provider (`LLM_*`); null when none is configured. */
  defaultConnection: ProviderConnection | null;
  /** A tenant's provider with its secrets opened; throws when it does not exist. */
  connectionOf: (tenantId: string, providerId: string) => Promise<ProviderConnection>;
  timeoutMs: number;
  /** Whether a tenant's provider URL may reach private addresses (ALLOW_PRIVATE_URLS, or a host the operator named). */
  allowsPrivate: (baseUrl: string | undefined) => boolean;
  /** How long a provider's connection is reused before it is read again. */
  cacheMs?: number;
}

const MAX_CACHED = 1_000;

/**
 * fetch that refuses private addresses at connection time (DNS rebinding included) and follows no
 * redirect, as webhooks do: a tenant's provider URL is the tenant's to choose.
 */
const guardedFetchFor =
  (allowPrivate: boolean): typeof globalThis.fetch =>
  async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    // Never followed: a redirect to a private address would skip the guard (an address literal is not looked up),
    // and would carry the provider's key headers to another origin. A 3xx is answered as the provider's refusal.
    return guardedFetch(url, { ...(init as UndiciRequestInit), redirect: 'manual' }, { allowPrivate });
  };

export function createModelChats({
  defaultConnection,
  connectionOf,
  timeoutMs,
  allowsPrivate,
  cacheMs = 10_000,
}: ModelChatsOptions): ModelChats {
  // The installation's provider is the operator's configuration: trusted, plain fetch.
  const defaultChat = defaultConnection
    ? { client: createModelChatClient({ connection: defaultConnection, timeoutMs }), connection: defaultConnection }
    : null;
  const forConnection = (connection: ProviderConnection) =>
    createModelChatClient({ connection, timeoutMs, fetch: guardedFetchFor(allowsPrivate(connection.baseUrl)) });
  const cached = new Map<string, { at: number; chat: Promise<ProviderChat> }>();

  return {
    forConnection,
    async forProvider(tenantId, providerId) {
      if (providerId === undefined) return defaultChat;
      const key = `${tenantId}\u0000${providerId}`;
      const now = Date.now();
      const hit = cached.get(key);
      if (hit && now - hit.at < cacheMs) return hit.chat;
      const chat = connectionOf(tenantId, providerId).then((connection) => ({ client: forConnection(connection), connection }));
      // A failed read is not kept: the next call reads again.
      chat.catch(() => {
        if (cached.get(key)?.chat === chat) cached.delete(key);
      });
      cached.delete(key);
      if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value!);
      cached.set(key, { at: now, chat });
      return chat;
    },
  };
}

/** The installation's default provider (`LLM_*`): an OpenAI-compatible server; null when none is configured. */
function defaultConnectionOf(config: Config): ProviderConnection | null {
  if (!config.LLM_BASE_URL) return null;
  const priced = config.LLM_INPUT_PRICE_PER_MILLION !== undefined || config.LLM_OUTPUT_PRICE_PER_MILLION !== undefined;
  return {
    providerId: null,
    kind: 'openai-compatible',
    baseUrl: config.LLM_BASE_URL,
    apiKey: config.LLM_API_KEY,
    headers: {},
    // LLM_MODEL's price, when one is set: its runs then record `cost.amount`.
    models: priced
      ? [
          {
            id: config.LLM_MODEL,
            inputPricePerMillion: config.LLM_INPUT_PRICE_PER_MILLION,
            outputPricePerMillion: config.LLM_OUTPUT_PRICE_PER_MILLION,
          },
        ]
      : [],
  };
}

/** A process's model chats as the configuration sets them: the default provider, tenants' through `connectionOf`. */
export const modelChatsOf = (config: Config, connectionOf: ModelChatsOptions['connectionOf']): ModelChats =>
  createModelChats({
    defaultConnection: defaultConnectionOf(config),
    connectionOf,
    timeoutMs: config.LLM_TIMEOUT_MS,
    allowsPrivate: (baseUrl) => providerUrlAllowsPrivate(baseUrl, config),
  });
