import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Db } from 'mongodb';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import type { DocumentParsing } from '../knowledge/parse-pool';
import { createChunkIndex } from '../stores/chunk-index';
import { createDocumentStore } from '../stores/documents';
import { createKnowledgeBaseStore } from '../stores/knowledge-bases';
import { createEventLog } from '../stores/event-log';
import type { SecretBox } from '../stores/secret-box';
import { createWebhookStore } from '../stores/webhooks';
import type { ChatModelClient } from '../llm/chat-model';
import { createCompletionRunStore } from '../stores/completion-runs';
import { createCostStore } from '../stores/costs';
import { createFileStore } from '../stores/files';
import { createRunEventStore } from '../stores/run-events';
import { createSessionStore } from '../stores/sessions';
import { createKnowledgeActivities } from './knowledge';
import { createLlmActivities } from './llm';
import { createRetrievalActivities } from './retrieval';
import { createRunActivities } from './runs';
import { createToolActivities } from './tools';
import { createMongoActivities } from './mongo';
import { createWebhookActivities } from './webhooks';
import { createAgentTaskActivities } from './agent-tasks';
import type { Config } from '../common/config';
import { createAgentStore } from '../stores/agents';
import { createSkillStore } from '../stores/skills';

export interface ActivityDeps {
  /** What agent tasks build their completion's input with (model defaults, history and run limits). */
  config: Config;
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
    /** Extracts and splits uploads (PARSE_THREADS, PARSE_TIMEOUT_MS). */
    parsing: DocumentParsing;
  };
  completions: {
    /** null: no model configured (LLM_BASE_URL unset). */
    chat: ChatModelClient | null;
    /** PUBLIC_BASE_URL, for links in events (report_url). */
    publicBaseUrl: string;
    /** COST_THRESHOLD_TOKENS */
    defaultCostThresholdTokens?: number;
    /** STREAM_RETENTION_HOURS */
    streamRetentionHours: number;
  };
}

/** All activities, one factory per external system, merged for the worker. */
export function createActivities(deps: ActivityDeps) {
  const eventLog = createEventLog(deps.db);
  const runEvents = createRunEventStore(deps.db);
  const files = createFileStore(deps.db);
  const sessions = createSessionStore(deps.db, eventLog);
  const runs = createCompletionRunStore(deps.db);
  const retrieval = {
    es: deps.es,
    chunkIndex: createChunkIndex(deps.es, deps.knowledge.indexPrefix),
    catalog: deps.knowledge.catalog,
    knowledgeBases: createKnowledgeBaseStore(deps.db),
  };
  const runActivities = createRunActivities({
    sessions,
    runs,
    runEvents,
    eventLog,
    costs: createCostStore(deps.db, eventLog, { defaultThresholdTokens: deps.completions.defaultCostThresholdTokens }),
    files,
    publicBaseUrl: deps.completions.publicBaseUrl,
  });
  return {
    ...createLlmActivities({
      chat: deps.completions.chat,
      runEvents,
      eventLog,
      recordFinishedRun: runActivities.finishRun,
      recordedRun: async (ctx) => {
        const run = await runs.get(ctx.tenantId, ctx.traceId).catch(() => null);
        if (run?.status === 'completed' && run.answer !== null && run.cost) return { answer: run.answer, model: run.model, tokens: run.cost.tokens, artifacts: run.artifacts };
        // The recording's writes run side by side: the session may hold the answer before the run record does.
        const recorded = await sessions.recordedAnswer(ctx.tenantId, ctx.sessionId, ctx.traceId);
        return recorded ? { answer: recorded.content, ...recorded.answeredBy } : null;
      },
    }),
    ...createToolActivities({ retrieval, files, runEvents, eventLog, allowPrivateUrls: deps.allowPrivateUrls }),
    ...createRetrievalActivities({ ...retrieval, runEvents }),
    ...runActivities,
    ...createMongoActivities({ db: deps.db, streamRetentionHours: deps.completions.streamRetentionHours, inboundRetentionDays: deps.config.INBOUND_EVENT_RETENTION_DAYS }),
    ...createWebhookActivities({
      webhooks: createWebhookStore(deps.db, deps.secrets),
      eventLog: createEventLog(deps.db),
      allowPrivateUrls: deps.allowPrivateUrls,
      targetCacheMs: deps.webhookTargetCacheMs,
    }),
    ...createAgentTaskActivities({
      config: deps.config,
      agents: createAgentStore(deps.db),
      sessions,
      skills: createSkillStore(deps.db),
      files,
      documents: createDocumentStore(deps.db),
      runs,
    }),
    ...createKnowledgeActivities({
      documents: createDocumentStore(deps.db),
      knowledgeBases: createKnowledgeBaseStore(deps.db),
      chunkIndex: createChunkIndex(deps.es, deps.knowledge.indexPrefix),
      catalog: deps.knowledge.catalog,
      parsing: deps.knowledge.parsing,
      batchSize: deps.knowledge.batchSize,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
