import type { Config } from '../common/config';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import type { DocumentParsing } from '../knowledge/parse-pool';
import type { ModelChats } from '../upstream/models/model-chats';
import type { Stores } from '../stores';
import { createAgentTaskActivities } from './agent-tasks';
import { createApprovalActivities } from './approvals';
import { createKnowledgeActivities } from './knowledge';
import { createLlmActivities } from './llm';
import { createMcpToolActivities } from './mcp-tools';
import { createMongoActivities } from './mongo';
import { createRetrievalActivities } from './retrieval';
import { createRunActivities } from './runs';
import { createSessionTurnActivities, type RunWatch } from './session-turns';
import { createToolActivities } from './tools';
import { createWebhookActivities } from './webhooks';

/** What the worker's composition root hands the activities: the process's stores and clients, built once. */
export interface ActivityDeps {
  config: Config;
  stores: Stores;
  /** The embedding models offered (local MiniLM, remote ones). */
  catalog: KnowledgeCatalog;
  /** Extracts and splits uploads in threads (PARSE_THREADS, PARSE_TIMEOUT_MS). */
  parsing: DocumentParsing;
  /** The chat clients of the installation's default model provider (`LLM_*`) and of tenants' providers. */
  chats: ModelChats;
  /** Learns of, and tells about, runs that took their session's turn without the session's workflow. */
  runWatch: RunWatch;
  /** How long a subscription's URL and secret are reused (default 2 s). */
  webhookTargetCacheMs?: number;
}

/** All activities, one factory per external system, merged for the worker. */
export function createActivities({ config, stores, catalog, parsing, chats, runWatch, webhookTargetCacheMs }: ActivityDeps) {
  const { sessions, completionRuns: runs, runEvents, eventLog, files } = stores;
  const allowPrivateUrls = config.ALLOW_PRIVATE_URLS;
  const mcp = { agents: stores.agents, settings: config, toolsCacheMs: config.MCP_TOOLS_CACHE_MS };
  const retrieval = { chunkIndex: stores.chunkIndex, catalog, knowledgeBases: stores.knowledgeBases };
  const runActivities = createRunActivities({
    ...stores,
    runs,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    onTurnReleased: (sessionId, traceId) => runWatch.released(sessionId, traceId),
  });
  return {
    ...createLlmActivities({
      chats,
      runEvents,
      eventLog,
      recordFinishedRun: runActivities.finishRun,
      recordedRun: async (ctx) => {
        const run = await runs.get(ctx.tenantId, ctx.traceId).catch(() => null);
        if (run?.status === 'completed' && run.answer !== null && run.cost)
          return {
            answer: run.answer,
            model: run.model,
            tokens: run.cost.tokens,
            ...(run.cost.input_tokens !== undefined
              ? { inputTokens: run.cost.input_tokens, outputTokens: run.cost.output_tokens, amount: run.cost.amount }
              : {}),
            artifacts: run.artifacts,
          };
        // The recording's writes run side by side: the session may hold the answer before the run record does.
        const recorded = await sessions.recordedAnswer(ctx.tenantId, ctx.sessionId, ctx.traceId);
        return recorded ? { answer: recorded.content, ...recorded.answeredBy } : null;
      },
      notePartialAnswer: (traceId, text) => runs.notePartialAnswer(traceId, text),
    }),
    ...createToolActivities({ retrieval, files, runEvents, eventLog, allowPrivateUrls, mcp }),
    ...createMcpToolActivities(mcp),
    ...createRetrievalActivities({ ...retrieval, runEvents }),
    ...runActivities,
    ...createSessionTurnActivities({ sessionTurns: stores.sessionTurns, runWatch }),
    ...createApprovalActivities({ runs, runEvents, eventLog }),
    ...createMongoActivities({
      ...stores,
      streamRetentionHours: config.STREAM_RETENTION_HOURS,
      inboundRetentionDays: config.INBOUND_EVENT_RETENTION_DAYS,
      deliveryRetentionDays: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
      deadLetterRetentionDays: config.WEBHOOK_DEAD_LETTER_RETENTION_DAYS,
      eventRetentionDays: config.EVENT_RETENTION_DAYS,
    }),
    ...createWebhookActivities({ webhooks: stores.webhooks, eventLog, allowPrivateUrls, targetCacheMs: webhookTargetCacheMs }),
    ...createAgentTaskActivities({ ...stores, config, runs }),
    ...createKnowledgeActivities({ ...stores, catalog, parsing, batchSize: config.INGEST_BATCH_SIZE }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
