import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { ModelProviderKind, ProviderConnection } from '../../common/model-provider';

/**
 * Where each vendor's API is when a provider names no base URL. Given explicitly: left out, the AI
 * SDK would read OPENAI_BASE_URL (and the key from OPENAI_API_KEY...) from this process's
 * environment, and a tenant's provider must never pick up the installation's settings.
 */
const VENDOR_BASE_URLS: Record<Exclude<ModelProviderKind, 'openai-compatible'>, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
};

/** The base URL a connection's calls go to (`openai-compatible` providers always name theirs). */
export function baseUrlOf(connection: ProviderConnection): string {
  if (connection.kind === 'openai-compatible') {
    if (!connection.baseUrl) throw new TypeError('an openai-compatible provider needs a base URL');
    return connection.baseUrl;
  }
  return connection.baseUrl ?? VENDOR_BASE_URLS[connection.kind];
}

/**
 * The AI SDK's provider of a connection, built once: it gives the model for each model id. `openai`
 * speaks OpenAI's chat completions (not the Responses API), as the OpenAI-compatible servers do;
 * every call goes through `fetch`.
 */
export function languageModelsOf(connection: ProviderConnection, fetch: typeof globalThis.fetch): (modelId: string) => LanguageModel {
  const settings = {
    baseURL: baseUrlOf(connection).replace(/\/+$/, ''),
    // An empty string, never undefined: undefined makes the SDK fall back to the process's environment.
    apiKey: connection.apiKey ?? '',
    headers: connection.headers,
    fetch,
  };
  switch (connection.kind) {
    case 'openai': {
      const openai = createOpenAI(settings);
      return (modelId) => openai.chat(modelId);
    }
    case 'anthropic':
      return createAnthropic(settings);
    case 'google':
      return createGoogleGenerativeAI(settings);
    case 'openai-compatible': {
      const compatible = createOpenAICompatible({
        ...settings,
        // Without an API key no Authorization header at all (local servers refuse an empty Bearer).
        apiKey: connection.apiKey,
        name: 'openai-compatible',
        includeUsage: true,
        supportsStructuredOutputs: true,
      });
      return (modelId) => compatible.chatModel(modelId);
    }
  }
}
