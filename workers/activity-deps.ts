import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Db } from 'mongodb';
import type { ActivityDeps } from '../activities';
import type { Config } from '../common/config';
import { createKnowledgeCatalog } from '../knowledge/catalog';
import { createParsePool, parsePoolOptions } from '../knowledge/parse-pool';
import { createOpenAiChatClient } from '../llm/openai-chat';
import { createSecretBox } from '../stores/secret-box';

/** What the activities need, from the configuration and the process's clients. */
export function activityDepsFromConfig(config: Config, db: Db, es: EsClient, overrides: Partial<ActivityDeps> = {}): ActivityDeps {
  return {
    config,
    db,
    es,
    secrets: createSecretBox(config.SECRETS_ENCRYPTION_KEY),
    allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
    knowledge: {
      catalog: createKnowledgeCatalog(config),
      indexPrefix: config.ELASTICSEARCH_INDEX_PREFIX,
      batchSize: config.INGEST_BATCH_SIZE,
      parsing: createParsePool(parsePoolOptions(config, config.PARSE_TIMEOUT_MS)),
    },
    completions: {
      chat: config.LLM_BASE_URL
        ? createOpenAiChatClient({ baseUrl: config.LLM_BASE_URL, apiKey: config.LLM_API_KEY, timeoutMs: config.LLM_TIMEOUT_MS })
        : null,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      defaultCostThresholdTokens: config.COST_THRESHOLD_TOKENS,
      streamRetentionHours: config.STREAM_RETENTION_HOURS,
    },
    ...overrides,
  };
}
