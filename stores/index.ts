import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Db } from 'mongodb';
import type { Config } from '../common/config';
import { createAgentStore } from './agents';
import { createApiKeyStore } from './api-keys';
import { createChunkIndex } from './chunk-index';
import { createCompletionRunStore } from './completion-runs';
import { createCostLedger } from './cost-ledger';
import { createCostQueue } from './cost-queue';
import { createCostRunStore } from './cost-runs';
import { createCostSettings } from './cost-settings';
import { createCronJobStore } from './cron-jobs';
import { createDocumentStore } from './documents';
import { createEventLog } from './event-log';
import { createFileStore } from './files';
import { createIdempotencyKeyStore } from './idempotency-keys';
import { createIntegrationStore } from './integrations';
import { createKnowledgeBaseStore } from './knowledge-bases';
import { createModelProviderStore } from './model-providers';
import { purgeExpiredRateCounters } from './rate-limit-purge';
import { purgeEndedDeliveries, purgeLoggedEventsBefore } from './retention-purge';
import { createRunEventStore } from './run-events';
import { createSecretBox } from './secret-box';
import { createServiceKeyStore } from './service-keys';
import { createSessionStore } from './sessions';
import { createSessionTurnStore } from './session-turns';
import { createSkillStore } from './skills';
import { createTriggerStore } from './triggers';
import { createWebhookStore } from './webhooks';

export interface StoreOptions {
  /**
   * Whether reads may be served from a process's short-lived cache (LIST_CACHE_TTL_MS): the API's
   * agent lists and searches' knowledge-base settings. The worker reads fresh.
   */
  readCaches: boolean;
}

/**
 * Every store of the service, built once per process by its composition root (api/main.ts,
 * workers/main.ts, a test) and handed down: one event log, one secret box, one of each store.
 */
export function createStores(db: Db, es: EsClient, config: Config, { readCaches }: StoreOptions) {
  const cacheTtlMs = readCaches ? config.LIST_CACHE_TTL_MS : 0;
  const eventLog = createEventLog(db);
  const secretBox = createSecretBox(config.SECRETS_ENCRYPTION_KEY);
  return {
    eventLog,
    agents: createAgentStore(db, secretBox, { listCacheTtlMs: cacheTtlMs }),
    apiKeys: createApiKeyStore(db),
    sessions: createSessionStore(db, eventLog),
    sessionTurns: createSessionTurnStore(db),
    skills: createSkillStore(db),
    webhooks: createWebhookStore(db, secretBox),
    integrations: createIntegrationStore(db, secretBox, { publicBaseUrl: config.PUBLIC_BASE_URL }),
    modelProviders: createModelProviderStore(db, secretBox),
    knowledgeBases: createKnowledgeBaseStore(db, { readCacheTtlMs: cacheTtlMs }),
    documents: createDocumentStore(db),
    chunkIndex: createChunkIndex(es, config.ELASTICSEARCH_INDEX_PREFIX),
    completionRuns: createCompletionRunStore(db, {
      temporalUi: config.TEMPORAL_UI_URL ? { url: config.TEMPORAL_UI_URL, namespace: config.TEMPORAL_NAMESPACE } : undefined,
    }),
    runEvents: createRunEventStore(db),
    costQueue: createCostQueue(db),
    costRuns: createCostRunStore(db),
    costLedger: createCostLedger(db),
    costSettings: createCostSettings(db, {
      defaultThresholdTokens: config.COST_THRESHOLD_TOKENS,
      defaultThresholdAmount: config.COST_THRESHOLD_AMOUNT,
    }),
    files: createFileStore(db),
    cronJobs: createCronJobStore(db),
    triggers: createTriggerStore(db),
    idempotencyKeys: createIdempotencyKeyStore(db, secretBox, { ttlMs: config.IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000 }),
    serviceKeys: createServiceKeyStore(db, secretBox),
    rateCounters: { purgeExpired: (now?: Date) => purgeExpiredRateCounters(db, now) },
    retention: {
      purgeEndedDeliveries: (before: { deliveredBefore: Date | null; deadBefore: Date | null }) => purgeEndedDeliveries(db, before),
      purgeLoggedEventsBefore: (before: Date) => purgeLoggedEventsBefore(db, before),
    },
  };
}

export type Stores = ReturnType<typeof createStores>;
