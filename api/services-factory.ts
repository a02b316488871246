import { hostname } from 'node:os';
import { Client as EsClient } from '@elastic/elasticsearch';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../common/config';
import { randomToken } from '../common/ids';
import type { Logger } from '../common/logger';
import { createAgentStore } from '../stores/agents';
import { createApiKeyStore } from '../stores/api-keys';
import { createEventLog } from '../stores/event-log';
import { connectMongo, ensureIndexes } from '../stores/mongo';
import { createRateLimiter } from '../stores/rate-limits';
import { createSecretBox } from '../stores/secret-box';
import { createSessionStore } from '../stores/sessions';
import { createSkillStore } from '../stores/skills';
import { createWebhookStore } from '../stores/webhooks';
import { createKnowledgeCatalog } from '../knowledge/catalog';
import { createChunkIndex } from '../stores/chunk-index';
import { createDocumentStore } from '../stores/documents';
import { createKnowledgeBaseStore } from '../stores/knowledge-bases';
import { createCompletionRunStore } from '../stores/completion-runs';
import { createRunEventStore } from '../stores/run-events';
import { createCostStore } from '../stores/costs';
import { createFileStore } from '../stores/files';
import { createParsePool, parsePoolOptions } from '../knowledge/parse-pool';
import { createIntegrationStore } from '../stores/integrations';
import { createCronJobStore } from '../stores/cron-jobs';
import { createTriggerStore } from '../stores/triggers';
import { createTriggerDispatcher } from '../triggers/dispatch';
import { createAuthenticator } from './auth';
import type { Services } from './services';

export interface ServiceOptions {
  /** How stale a process's view of shared rate counts may get (ms). */
  rateLimitSyncMs?: number;
}

/** Connects every client once and wires the stores; the caller owns `close()`. */
export async function createServices(config: Config, log: Logger, options: ServiceOptions = {}): Promise<Services & { close(): Promise<void> }> {
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  await ensureIndexes(mongo.db);
  const es = new EsClient({ node: config.ELASTICSEARCH_URL, requestTimeout: 30_000 });
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });

  const eventLog = createEventLog(mongo.db);
  const apiKeys = createApiKeyStore(mongo.db);
  const secretBox = createSecretBox(config.SECRETS_ENCRYPTION_KEY);
  const triggers = createTriggerStore(mongo.db);
  // Attachments are read while their client waits, in threads: the event loop keeps answering.
  const attachmentParsing = createParsePool(parsePoolOptions(config, config.FILE_PARSE_TIMEOUT_MS));
  if (config.BOOTSTRAP_API_KEY) await apiKeys.ensureBootstrap(config.BOOTSTRAP_TENANT_ID, config.BOOTSTRAP_API_KEY);

  const services: Services = {
    config,
    log,
    mongo,
    es,
    temporal,
    eventLog,
    apiKeys,
    agents: createAgentStore(mongo.db, { listCacheTtlMs: config.LIST_CACHE_TTL_MS }),
    sessions: createSessionStore(mongo.db, eventLog),
    skills: createSkillStore(mongo.db),
    rateLimiter: createRateLimiter(mongo.db, {
      limits: {
        completions: config.RATE_LIMIT_COMPLETIONS_PER_MIN,
        uploads: config.RATE_LIMIT_UPLOADS_PER_MIN,
        default: config.RATE_LIMIT_DEFAULT_PER_MIN,
        inbound: config.RATE_LIMIT_INBOUND_PER_MIN,
        inbound_refused: config.RATE_LIMIT_INBOUND_PER_MIN,
      },
      syncMs: options.rateLimitSyncMs ?? config.RATE_LIMIT_SYNC_MS,
      processId: `${hostname()}-${process.pid}-${randomToken(6)}`,
      onSyncError: (err) => log.warn('rate-limit counts not shared (database unavailable); counting locally', { error: String(err) }),
    }),
    auth: createAuthenticator(config, apiKeys),
    webhooks: createWebhookStore(mongo.db, secretBox),
    integrations: createIntegrationStore(mongo.db, secretBox, { publicBaseUrl: config.PUBLIC_BASE_URL }),
    knowledgeBases: createKnowledgeBaseStore(mongo.db, { readCacheTtlMs: config.LIST_CACHE_TTL_MS }),
    documents: createDocumentStore(mongo.db),
    chunkIndex: createChunkIndex(es, config.ELASTICSEARCH_INDEX_PREFIX),
    catalog: createKnowledgeCatalog(config),
    completionRuns: createCompletionRunStore(mongo.db),
    runEvents: createRunEventStore(mongo.db),
    costs: createCostStore(mongo.db, eventLog, { defaultThresholdTokens: config.COST_THRESHOLD_TOKENS }),
    files: createFileStore(mongo.db, attachmentParsing),
    cronJobs: createCronJobStore(mongo.db),
    triggers,
    triggerDispatcher: createTriggerDispatcher({ triggers, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE }),
  };
  return {
    ...services,
    async close() {
      await attachmentParsing.close();
      await connection.close();
      await es.close();
      await mongo.close();
    },
  };
}
