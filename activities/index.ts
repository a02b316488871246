import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Db } from 'mongodb';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import { createChunkBatchStore } from '../stores/chunk-batches';
import { createChunkIndex } from '../stores/chunk-index';
import { createDocumentStore } from '../stores/documents';
import { createKnowledgeBaseStore } from '../stores/knowledge-bases';
import { createEventLog } from '../stores/event-log';
import type { SecretBox } from '../stores/secret-box';
import { createWebhookStore } from '../stores/webhooks';
import { createKnowledgeActivities } from './knowledge';
import { createMongoActivities } from './mongo';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Db;
  secrets: SecretBox;
  allowPrivateUrls: boolean;
  /** How long a subscription's URL and secret are reused (default 2 s). */
  webhookTargetCacheMs?: number;
  es: EsClient;
  knowledge: {
    catalog: KnowledgeCatalog;
    /** ELASTICSEARCH_INDEX_PREFIX */
    indexPrefix: string;
    /** Chunks embedded and indexed per activity (INGEST_BATCH_SIZE). */
    batchSize: number;
  };
}

/** All activities, one factory per external system, merged for the worker. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMongoActivities({ db: deps.db }),
    ...createWebhookActivities({
      webhooks: createWebhookStore(deps.db, deps.secrets),
      eventLog: createEventLog(deps.db),
      allowPrivateUrls: deps.allowPrivateUrls,
      targetCacheMs: deps.webhookTargetCacheMs,
    }),
    ...createKnowledgeActivities({
      documents: createDocumentStore(deps.db),
      knowledgeBases: createKnowledgeBaseStore(deps.db),
      chunkBatches: createChunkBatchStore(deps.db),
      chunkIndex: createChunkIndex(deps.es, deps.knowledge.indexPrefix),
      catalog: deps.knowledge.catalog,
      batchSize: deps.knowledge.batchSize,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
