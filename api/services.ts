import type { Client } from '@temporalio/client';
import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import type { MongoHandle } from '../stores/mongo';
import type { AgentStore } from '../stores/agents';
import type { ApiKeyStore } from '../stores/api-keys';
import type { EventLog } from '../stores/event-log';
import type { RateLimiter } from '../stores/rate-limits';
import type { SessionStore } from '../stores/sessions';
import type { SkillStore } from '../stores/skills';
import type { WebhookStore } from '../stores/webhooks';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import type { ChunkIndex } from '../stores/chunk-index';
import type { DocumentStore } from '../stores/documents';
import type { KnowledgeBaseStore } from '../stores/knowledge-bases';
import type { CompletionRunStore } from '../stores/completion-runs';
import type { RunEventStore } from '../stores/run-events';
import type { CostStore } from '../stores/costs';
import type { FileStore } from '../stores/files';
import type { IntegrationStore } from '../stores/integrations';
import type { CronJobStore } from '../stores/cron-jobs';
import type { TriggerStore } from '../stores/triggers';
import type { TriggerDispatcher } from '../triggers/inbound-event';
import type { Authenticator } from './auth';

/** Everything a route handler may use, built once per process (api/main.ts or a test). */
export interface Services {
  config: Config;
  log: Logger;
  mongo: MongoHandle;
  es: EsClient;
  temporal: Client;
  agents: AgentStore;
  sessions: SessionStore;
  skills: SkillStore;
  apiKeys: ApiKeyStore;
  eventLog: EventLog;
  rateLimiter: RateLimiter;
  webhooks: WebhookStore;
  knowledgeBases: KnowledgeBaseStore;
  documents: DocumentStore;
  chunkIndex: ChunkIndex;
  catalog: KnowledgeCatalog;
  auth: Authenticator;
  completionRuns: CompletionRunStore;
  runEvents: RunEventStore;
  costs: CostStore;
  files: FileStore;
  /** Inbound webhook integrations: per-tenant, per-channel shared secrets, and the event ids seen. */
  integrations: IntegrationStore;
  cronJobs: CronJobStore;
  triggers: TriggerStore;
  /** Starts the agent tasks an inbound event sets off (used by the inbound webhook endpoints). */
  triggerDispatcher: TriggerDispatcher;
}
