import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import type { AttachmentExtraction } from '../knowledge/parse-pool';
import type { Stores } from '../stores';
import { createAgentCommands } from './agents';
import { createCompletionCommands } from './completions';
import { createCostCommands } from './costs';
import { createCronCommands } from './cron';
import { createDocumentCommands } from './documents';
import { createFileCommands } from './files';
import { createInboundCommands } from './inbound';
import { createKnowledgeBaseCommands } from './knowledge-bases';
import { createMcpToolCommands } from './mcp-tools';
import { createModelProviderCommands } from './model-providers';
import { createOpenAiChatCommands } from './openai-chat';
import { createTemporalPayloadCommands } from './temporal-payloads';
import { createReadinessCheck } from './readiness';
import { allTaskQueues } from '../common/task-queues';
import { createSearchCommands } from './search';
import { createApprovalCommands } from './run-approvals';
import { createSessionCommands } from './sessions';
import { createSkillCommands } from './skills';
import { createTriggerCommands } from './triggers';
import { createWebhookDispatchCommands } from './webhook-dispatch';
import { createWebhookSubscriptionCommands } from './webhook-subscriptions';
import { type ModelChats, modelChatsOf } from '../upstream/models/model-chats';
import { createProviderCheck } from '../upstream/models/provider-check';
import { logModelWarnings } from '../upstream/models/sdk-warnings';

export interface CommandDeps {
  config: Config;
  log: Logger;
  temporal: Client;
  db: Db;
  es: EsClient;
  stores: Stores;
  /** The embedding models (searches embed their question). */
  catalog: KnowledgeCatalog;
  /** Reads attachments in parsing threads (the API's pool); a process that takes no uploads passes none. */
  attachmentParsing?: Pick<AttachmentExtraction, 'extract'>;
  /** The process's model chats, when its composition root has built them (the worker's activities use them too); built here otherwise. */
  modelChats?: ModelChats;
}

const noAttachmentParsing: Pick<AttachmentExtraction, 'extract'> = {
  extract: () => Promise.reject(new Error('this process reads no attachments: they are uploaded through the API')),
};

/**
 * The use cases: every Temporal client call and every operation of more than one step, built once
 * per process by its composition root. The edges (routes, the inbound endpoints, the worker's
 * dispatcher, activities that start work) call these.
 */
export function createCommands({
  config,
  log,
  temporal,
  db,
  es,
  stores,
  catalog,
  attachmentParsing = noAttachmentParsing,
  modelChats,
}: CommandDeps) {
  // What providers adapt or ignore in a call (of a run or a check) goes to this process's log.
  logModelWarnings(log);
  // `POST /v1/model-providers/{id}/check` calls providers through the AI SDK, as runs do.
  const checkProvider = createProviderCheck(
    modelChats ?? modelChatsOf(config, (tenantId, providerId) => stores.modelProviders.connection(tenantId, providerId)),
  );
  const completions = createCompletionCommands({ ...stores, config, temporal, log });
  const search = createSearchCommands({ knowledgeBases: stores.knowledgeBases, chunkIndex: stores.chunkIndex, catalog });
  return {
    completions,
    openai: createOpenAiChatCommands({
      agents: stores.agents,
      sessions: stores.sessions,
      completionRuns: stores.completionRuns,
      completions,
    }),
    temporalPayloads: createTemporalPayloadCommands(config),
    approvals: createApprovalCommands({ ...stores, temporal }),
    documents: createDocumentCommands({ ...stores, config, temporal }),
    files: createFileCommands({ files: stores.files, extraction: attachmentParsing }),
    agents: createAgentCommands({ ...stores, temporal, config }),
    costs: createCostCommands(stores),
    cron: createCronCommands({ ...stores, config, log, temporal }),
    inbound: createInboundCommands({ triggers: stores.triggers, integrations: stores.integrations, config, log, temporal }),
    webhooks: createWebhookDispatchCommands({ ...stores, config, temporal }),
    subscriptions: createWebhookSubscriptionCommands({ ...stores, config }),
    modelProviders: createModelProviderCommands({ ...stores, config, checkProvider }),
    triggers: createTriggerCommands(stores),
    sessions: createSessionCommands(stores),
    skills: createSkillCommands({ ...stores, config }),
    readiness: createReadinessCheck({
      temporal,
      db,
      es,
      taskQueues: allTaskQueues(config),
      workerPollStaleMs: config.WORKER_POLL_STALE_MS,
    }),
    knowledgeBases: createKnowledgeBaseCommands({ knowledgeBases: stores.knowledgeBases, catalog }),
    search,
    mcp: createMcpToolCommands({ agents: stores.agents, sessions: stores.sessions, documents: stores.documents, completions, search }),
  };
}

export type Commands = ReturnType<typeof createCommands>;
