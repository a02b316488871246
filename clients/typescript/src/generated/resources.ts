// Generated from clients/openapi.json by clients/codegen/typescript.ts (npm run clients:generate): do not edit.

import {
  APIResource,
  ComboCore,
  type APIPromise,
  type ClientOptions,
  type HttpMethod,
  type PagePromise,
  type RequestOptions,
  type UploadOptions,
} from '../core';
import type { Completions } from '../resources/completions';
import type { Runs } from '../resources/runs';
import type { Inbound } from '../resources/inbound';
import type { Documents } from '../resources/documents';
import type {
  ActivateSkillRequest,
  Agent,
  ApiKey,
  ApprovalDecision,
  ApprovalDecisionRequest,
  BackfillCronJobRequest,
  CheckModelProviderRequest,
  ChunkSearchRequest,
  ChunkSearchResult,
  CompletionRun,
  ConsoleToken,
  ConsoleTokenRequest,
  CostReport,
  CostSummary,
  CreateAgentRequest,
  CreateApiKeyRequest,
  CreateCronJobRequest,
  CreateEventTriggerRequest,
  CreateIntegrationRequest,
  CreateKnowledgeBaseRequest,
  CreateMessageRequest,
  CreateModelProviderRequest,
  CreateSessionRequest,
  CreateWebhookSubscriptionRequest,
  CreatedApiKey,
  CronJob,
  CronJobBackfill,
  CronJobTriggered,
  Deleted,
  DeliveryStatus,
  Document,
  DocumentChunk,
  DocumentStatus,
  EmbeddingModelList,
  Event,
  EventName,
  EventTrigger,
  EventTriggerPreview,
  EventTriggerPreviewRequest,
  File,
  Health,
  InstallSkillRequest,
  Integration,
  IntegrationWithSecret,
  KnowledgeBase,
  Message,
  ModelProvider,
  ModelProviderCheck,
  ParserList,
  ProcessorList,
  Readiness,
  ReparseDocumentRequest,
  RotateIntegrationSecretRequest,
  RotateWebhookSecretRequest,
  RunKind,
  RunStatus,
  ScenarioList,
  Session,
  SessionStatus,
  SessionTemplateList,
  SetCostThresholdRequest,
  Skill,
  SkillActivation,
  UpdateAgentRequest,
  UpdateCronJobRequest,
  UpdateEventTriggerRequest,
  UpdateKnowledgeBaseRequest,
  UpdateModelProviderRequest,
  UpdateWebhookSubscriptionRequest,
  UploadDocumentRequest,
  UploadFileRequest,
  WebhookDelivery,
  WebhookReplay,
  WebhookReplayRequest,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from './models';

/** An operation of the OpenAPI document and its place in the client (`client.<resource>.<method>`). */
export interface OperationInfo {
  operationId: string;
  resource: string;
  method: string;
  httpMethod: HttpMethod;
  path: string;
  /** Written by hand on top of the generated class (src/resources/). */
  handWritten: boolean;
}

/** Every operation of the document, in document order (clients/codegen/operations.ts places them). */
export const OPERATIONS: readonly OperationInfo[] = [
  { operationId: 'createAgent', resource: 'agents', method: 'create', httpMethod: 'POST', path: '/v1/combo/agents', handWritten: false },
  { operationId: 'listAgents', resource: 'agents', method: 'list', httpMethod: 'GET', path: '/v1/combo/agents', handWritten: false },
  {
    operationId: 'getAgent',
    resource: 'agents',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/combo/agents/{agent_id}',
    handWritten: false,
  },
  {
    operationId: 'updateAgent',
    resource: 'agents',
    method: 'update',
    httpMethod: 'PUT',
    path: '/v1/combo/agents/{agent_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteAgent',
    resource: 'agents',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/combo/agents/{agent_id}',
    handWritten: false,
  },
  {
    operationId: 'createSession',
    resource: 'sessions',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/combo/agents/{agent_id}/sessions',
    handWritten: false,
  },
  {
    operationId: 'listSessions',
    resource: 'sessions',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/combo/agents/{agent_id}/sessions',
    handWritten: false,
  },
  {
    operationId: 'listTenantSessions',
    resource: 'sessions',
    method: 'listAll',
    httpMethod: 'GET',
    path: '/v1/combo/sessions',
    handWritten: false,
  },
  {
    operationId: 'getSession',
    resource: 'sessions',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/combo/sessions/{session_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteSession',
    resource: 'sessions',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/combo/sessions/{session_id}',
    handWritten: false,
  },
  {
    operationId: 'archiveSession',
    resource: 'sessions',
    method: 'archive',
    httpMethod: 'POST',
    path: '/v1/combo/sessions/{session_id}/archive',
    handWritten: false,
  },
  {
    operationId: 'addMessage',
    resource: 'sessions.messages',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/combo/sessions/{session_id}/messages',
    handWritten: false,
  },
  {
    operationId: 'listMessages',
    resource: 'sessions.messages',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/combo/sessions/{session_id}/messages',
    handWritten: false,
  },
  {
    operationId: 'getMessage',
    resource: 'sessions.messages',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/combo/sessions/{session_id}/messages/{message_id}',
    handWritten: false,
  },
  {
    operationId: 'createCompletion',
    resource: 'completions',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/combo/agents/{agent_id}/completions',
    handWritten: true,
  },
  {
    operationId: 'listAgentCompletions',
    resource: 'runs',
    method: 'listForAgent',
    httpMethod: 'GET',
    path: '/v1/combo/agents/{agent_id}/completions',
    handWritten: false,
  },
  {
    operationId: 'resumeCompletionStream',
    resource: 'runs',
    method: 'events',
    httpMethod: 'GET',
    path: '/v1/combo/completions/{trace_id}/events',
    handWritten: true,
  },
  {
    operationId: 'getCompletion',
    resource: 'runs',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/combo/completions/{trace_id}',
    handWritten: false,
  },
  {
    operationId: 'cancelCompletion',
    resource: 'runs',
    method: 'cancel',
    httpMethod: 'POST',
    path: '/v1/combo/completions/{trace_id}/cancel',
    handWritten: false,
  },
  {
    operationId: 'decideToolApproval',
    resource: 'runs.approvals',
    method: 'decide',
    httpMethod: 'POST',
    path: '/v1/combo/completions/{trace_id}/approvals/{approval_id}',
    handWritten: false,
  },
  {
    operationId: 'listCompletions',
    resource: 'runs',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/combo/completions',
    handWritten: false,
  },
  {
    operationId: 'listSessionCompletions',
    resource: 'runs',
    method: 'listForSession',
    httpMethod: 'GET',
    path: '/v1/combo/sessions/{session_id}/completions',
    handWritten: false,
  },
  {
    operationId: 'listScenarios',
    resource: 'scenarios',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/combo/scenarios',
    handWritten: false,
  },
  {
    operationId: 'listProcessors',
    resource: 'processors',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/combo/processors',
    handWritten: false,
  },
  {
    operationId: 'createConsoleToken',
    resource: 'auth',
    method: 'consoleToken',
    httpMethod: 'POST',
    path: '/v1/auth/console-token',
    handWritten: false,
  },
  { operationId: 'createApiKey', resource: 'apiKeys', method: 'create', httpMethod: 'POST', path: '/v1/api-keys', handWritten: false },
  { operationId: 'listApiKeys', resource: 'apiKeys', method: 'list', httpMethod: 'GET', path: '/v1/api-keys', handWritten: false },
  {
    operationId: 'revokeApiKey',
    resource: 'apiKeys',
    method: 'revoke',
    httpMethod: 'DELETE',
    path: '/v1/api-keys/{key_id}',
    handWritten: false,
  },
  { operationId: 'listEvents', resource: 'events', method: 'list', httpMethod: 'GET', path: '/v1/events', handWritten: false },
  {
    operationId: 'createWebhookSubscription',
    resource: 'webhooks.subscriptions',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/webhook/subscriptions',
    handWritten: false,
  },
  {
    operationId: 'listWebhookSubscriptions',
    resource: 'webhooks.subscriptions',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/webhook/subscriptions',
    handWritten: false,
  },
  {
    operationId: 'getWebhookSubscription',
    resource: 'webhooks.subscriptions',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/webhook/subscriptions/{subscription_id}',
    handWritten: false,
  },
  {
    operationId: 'updateWebhookSubscription',
    resource: 'webhooks.subscriptions',
    method: 'update',
    httpMethod: 'PUT',
    path: '/v1/webhook/subscriptions/{subscription_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteWebhookSubscription',
    resource: 'webhooks.subscriptions',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/webhook/subscriptions/{subscription_id}',
    handWritten: false,
  },
  {
    operationId: 'rotateWebhookSecret',
    resource: 'webhooks.subscriptions',
    method: 'rotateSecret',
    httpMethod: 'POST',
    path: '/v1/webhook/subscriptions/{subscription_id}/rotate-secret',
    handWritten: false,
  },
  {
    operationId: 'testWebhookSubscription',
    resource: 'webhooks.subscriptions',
    method: 'test',
    httpMethod: 'POST',
    path: '/v1/webhook/subscriptions/{subscription_id}/test',
    handWritten: false,
  },
  {
    operationId: 'listSubscriptionDeliveries',
    resource: 'webhooks.subscriptions',
    method: 'listDeliveries',
    httpMethod: 'GET',
    path: '/v1/webhook/subscriptions/{subscription_id}/deliveries',
    handWritten: false,
  },
  {
    operationId: 'listWebhookDeliveries',
    resource: 'webhooks.deliveries',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/webhook/deliveries',
    handWritten: false,
  },
  {
    operationId: 'getWebhookDelivery',
    resource: 'webhooks.deliveries',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/webhook/deliveries/{delivery_id}',
    handWritten: false,
  },
  {
    operationId: 'listDeadLetters',
    resource: 'webhooks.deadLetters',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/webhook/dead-letters',
    handWritten: false,
  },
  {
    operationId: 'replayDeadLetter',
    resource: 'webhooks.deadLetters',
    method: 'replay',
    httpMethod: 'POST',
    path: '/v1/webhook/dead-letters/{delivery_id}/replay',
    handWritten: false,
  },
  {
    operationId: 'replayWebhookEvents',
    resource: 'webhooks.replays',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/webhook/replays',
    handWritten: false,
  },
  {
    operationId: 'getWebhookReplay',
    resource: 'webhooks.replays',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/webhook/replays/{replay_id}',
    handWritten: false,
  },
  {
    operationId: 'receiveInboundWebhook',
    resource: 'inbound',
    method: 'send',
    httpMethod: 'POST',
    path: '/v1/webhook/{channel}',
    handWritten: true,
  },
  {
    operationId: 'receiveGenericWebhook',
    resource: 'inbound',
    method: 'sendGeneric',
    httpMethod: 'POST',
    path: '/v1/webhook/generic/{trigger_id}',
    handWritten: true,
  },
  {
    operationId: 'createIntegration',
    resource: 'integrations',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/integrations',
    handWritten: false,
  },
  {
    operationId: 'listIntegrations',
    resource: 'integrations',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/integrations',
    handWritten: false,
  },
  {
    operationId: 'getIntegration',
    resource: 'integrations',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/integrations/{integration_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteIntegration',
    resource: 'integrations',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/integrations/{integration_id}',
    handWritten: false,
  },
  {
    operationId: 'rotateIntegrationSecret',
    resource: 'integrations',
    method: 'rotateSecret',
    httpMethod: 'POST',
    path: '/v1/integrations/{integration_id}/rotate',
    handWritten: false,
  },
  {
    operationId: 'createModelProvider',
    resource: 'modelProviders',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/model-providers',
    handWritten: false,
  },
  {
    operationId: 'listModelProviders',
    resource: 'modelProviders',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/model-providers',
    handWritten: false,
  },
  {
    operationId: 'getModelProvider',
    resource: 'modelProviders',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/model-providers/{provider_id}',
    handWritten: false,
  },
  {
    operationId: 'updateModelProvider',
    resource: 'modelProviders',
    method: 'update',
    httpMethod: 'PUT',
    path: '/v1/model-providers/{provider_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteModelProvider',
    resource: 'modelProviders',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/model-providers/{provider_id}',
    handWritten: false,
  },
  {
    operationId: 'checkModelProvider',
    resource: 'modelProviders',
    method: 'check',
    httpMethod: 'POST',
    path: '/v1/model-providers/{provider_id}/check',
    handWritten: false,
  },
  { operationId: 'createCronJob', resource: 'cronJobs', method: 'create', httpMethod: 'POST', path: '/v1/cron', handWritten: false },
  { operationId: 'listCronJobs', resource: 'cronJobs', method: 'list', httpMethod: 'GET', path: '/v1/cron', handWritten: false },
  { operationId: 'getCronJob', resource: 'cronJobs', method: 'get', httpMethod: 'GET', path: '/v1/cron/{cron_id}', handWritten: false },
  {
    operationId: 'updateCronJob',
    resource: 'cronJobs',
    method: 'update',
    httpMethod: 'PUT',
    path: '/v1/cron/{cron_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteCronJob',
    resource: 'cronJobs',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/cron/{cron_id}',
    handWritten: false,
  },
  {
    operationId: 'triggerCronJob',
    resource: 'cronJobs',
    method: 'trigger',
    httpMethod: 'POST',
    path: '/v1/cron/{cron_id}/trigger',
    handWritten: false,
  },
  {
    operationId: 'backfillCronJob',
    resource: 'cronJobs',
    method: 'backfill',
    httpMethod: 'POST',
    path: '/v1/cron/{cron_id}/backfill',
    handWritten: false,
  },
  {
    operationId: 'listSessionTemplates',
    resource: 'eventTriggers',
    method: 'templates',
    httpMethod: 'GET',
    path: '/v1/event-trigger/templates',
    handWritten: false,
  },
  {
    operationId: 'createEventTrigger',
    resource: 'eventTriggers',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/event-trigger',
    handWritten: false,
  },
  {
    operationId: 'listEventTriggers',
    resource: 'eventTriggers',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/event-trigger',
    handWritten: false,
  },
  {
    operationId: 'previewEventTrigger',
    resource: 'eventTriggers',
    method: 'preview',
    httpMethod: 'POST',
    path: '/v1/event-trigger/preview',
    handWritten: false,
  },
  {
    operationId: 'getEventTrigger',
    resource: 'eventTriggers',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/event-trigger/{trigger_id}',
    handWritten: false,
  },
  {
    operationId: 'updateEventTrigger',
    resource: 'eventTriggers',
    method: 'update',
    httpMethod: 'PUT',
    path: '/v1/event-trigger/{trigger_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteEventTrigger',
    resource: 'eventTriggers',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/event-trigger/{trigger_id}',
    handWritten: false,
  },
  { operationId: 'listParsers', resource: 'parsers', method: 'list', httpMethod: 'GET', path: '/v1/kb/parsers', handWritten: false },
  {
    operationId: 'listEmbeddingModels',
    resource: 'embeddingModels',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/kb/embedding-models',
    handWritten: false,
  },
  {
    operationId: 'createKnowledgeBase',
    resource: 'knowledgeBases',
    method: 'create',
    httpMethod: 'POST',
    path: '/v1/kb',
    handWritten: false,
  },
  { operationId: 'listKnowledgeBases', resource: 'knowledgeBases', method: 'list', httpMethod: 'GET', path: '/v1/kb', handWritten: false },
  {
    operationId: 'getKnowledgeBase',
    resource: 'knowledgeBases',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/kb/{kb_id}',
    handWritten: false,
  },
  {
    operationId: 'updateKnowledgeBase',
    resource: 'knowledgeBases',
    method: 'update',
    httpMethod: 'PUT',
    path: '/v1/kb/{kb_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteKnowledgeBase',
    resource: 'knowledgeBases',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/kb/{kb_id}',
    handWritten: false,
  },
  {
    operationId: 'listDocuments',
    resource: 'documents',
    method: 'list',
    httpMethod: 'GET',
    path: '/v1/kb/{kb_id}/documents',
    handWritten: false,
  },
  { operationId: 'uploadDocument', resource: 'documents', method: 'upload', httpMethod: 'POST', path: '/v1/document', handWritten: false },
  {
    operationId: 'getDocument',
    resource: 'documents',
    method: 'get',
    httpMethod: 'GET',
    path: '/v1/document/{doc_id}',
    handWritten: false,
  },
  {
    operationId: 'deleteDocument',
    resource: 'documents',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/document/{doc_id}',
    handWritten: false,
  },
  {
    operationId: 'listDocumentChunks',
    resource: 'documents',
    method: 'listChunks',
    httpMethod: 'GET',
    path: '/v1/document/{doc_id}/chunks',
    handWritten: false,
  },
  {
    operationId: 'reparseDocument',
    resource: 'documents',
    method: 'reparse',
    httpMethod: 'POST',
    path: '/v1/document/{doc_id}/reparse',
    handWritten: false,
  },
  { operationId: 'searchChunks', resource: 'chunks', method: 'search', httpMethod: 'POST', path: '/v1/chunk/search', handWritten: false },
  { operationId: 'listSkills', resource: 'skills', method: 'list', httpMethod: 'GET', path: '/v1/skills', handWritten: false },
  {
    operationId: 'installSkill',
    resource: 'skills',
    method: 'install',
    httpMethod: 'POST',
    path: '/v1/skills/install',
    handWritten: false,
  },
  { operationId: 'getSkill', resource: 'skills', method: 'get', httpMethod: 'GET', path: '/v1/skills/{skill_id}', handWritten: false },
  {
    operationId: 'deleteSkill',
    resource: 'skills',
    method: 'delete',
    httpMethod: 'DELETE',
    path: '/v1/skills/{skill_id}',
    handWritten: false,
  },
  {
    operationId: 'activateSkill',
    resource: 'skills',
    method: 'activate',
    httpMethod: 'POST',
    path: '/v1/skills/{skill_id}/activate',
    handWritten: false,
  },
  { operationId: 'uploadFile', resource: 'files', method: 'upload', httpMethod: 'POST', path: '/v1/files', handWritten: false },
  { operationId: 'getFile', resource: 'files', method: 'get', httpMethod: 'GET', path: '/v1/files/{file_id}', handWritten: false },
  { operationId: 'deleteFile', resource: 'files', method: 'delete', httpMethod: 'DELETE', path: '/v1/files/{file_id}', handWritten: false },
  { operationId: 'getCosts', resource: 'costs', method: 'get', httpMethod: 'GET', path: '/v1/costs', handWritten: false },
  {
    operationId: 'setCostThreshold',
    resource: 'costs',
    method: 'setThreshold',
    httpMethod: 'PUT',
    path: '/v1/costs/threshold',
    handWritten: false,
  },
  {
    operationId: 'resetCostThreshold',
    resource: 'costs',
    method: 'resetThreshold',
    httpMethod: 'DELETE',
    path: '/v1/costs/threshold',
    handWritten: false,
  },
  { operationId: 'health', resource: 'service', method: 'health', httpMethod: 'GET', path: '/v1/health', handWritten: false },
  { operationId: 'ready', resource: 'service', method: 'ready', httpMethod: 'GET', path: '/v1/ready', handWritten: false },
  { operationId: 'openapi', resource: 'service', method: 'openapi', httpMethod: 'GET', path: '/v1/openapi.json', handWritten: false },
];

/** Parameters of `agents.list` (the query of GET /v1/combo/agents). */
export interface AgentsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only those whose name contains this text, ignoring letter case */
  name?: string;
}

/** Parameters of `agents.delete` (the query of DELETE /v1/combo/agents/{agent_id}). */
export interface AgentsDeleteParams {
  /**
   * `true`: also delete the cron jobs and event triggers that run this agent (otherwise their existence is 10005)
   * @default false
   */
  cascade?: boolean;
}

/** Parameters of `sessions.messages.list` (the query of GET /v1/combo/sessions/{session_id}/messages). */
export interface SessionsMessagesListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
}

/** Parameters of `sessions.list` (the query of GET /v1/combo/agents/{agent_id}/sessions). */
export interface SessionsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only the sessions of this user */
  user_id?: string;
  status?: SessionStatus;
  /** sessions created at or after this time */
  since?: string;
  /** sessions created before this time */
  until?: string;
}

/** Parameters of `sessions.listAll` (the query of GET /v1/combo/sessions). */
export interface SessionsListAllParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only the sessions of this user */
  user_id?: string;
  status?: SessionStatus;
  /** sessions created at or after this time */
  since?: string;
  /** sessions created before this time */
  until?: string;
  /** agent id */
  agent_id?: string;
}

/** Parameters of `runs.listForAgent` (the query of GET /v1/combo/agents/{agent_id}/completions). */
export interface RunsListForAgentParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** `queued`: waiting for an earlier run of its session (`enqueue`); `running`; `waiting_approval`: a tool call waits for a person; then `completed`, `failed` or `canceled` */
  status?: RunStatus;
  /** `chat`: a completion asked through the API; `trigger`: started by an event trigger; `cron`: started by a cron job */
  kind?: RunKind;
  /** runs created at or after this time */
  since?: string;
  /** runs created before this time */
  until?: string;
}

/** Parameters of `runs.list` (the query of GET /v1/combo/completions). */
export interface RunsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** `queued`: waiting for an earlier run of its session (`enqueue`); `running`; `waiting_approval`: a tool call waits for a person; then `completed`, `failed` or `canceled` */
  status?: RunStatus;
  /** `chat`: a completion asked through the API; `trigger`: started by an event trigger; `cron`: started by a cron job */
  kind?: RunKind;
  /** runs created at or after this time */
  since?: string;
  /** runs created before this time */
  until?: string;
}

/** Parameters of `runs.listForSession` (the query of GET /v1/combo/sessions/{session_id}/completions). */
export interface RunsListForSessionParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** `queued`: waiting for an earlier run of its session (`enqueue`); `running`; `waiting_approval`: a tool call waits for a person; then `completed`, `failed` or `canceled` */
  status?: RunStatus;
  /** `chat`: a completion asked through the API; `trigger`: started by an event trigger; `cron`: started by a cron job */
  kind?: RunKind;
  /** runs created at or after this time */
  since?: string;
  /** runs created before this time */
  until?: string;
}

/** Parameters of `apiKeys.list` (the query of GET /v1/api-keys). */
export interface ApiKeysListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** admins only: the keys of this user (members always see only theirs) */
  owner_id?: string;
}

/** Parameters of `events.list` (the query of GET /v1/events). */
export interface EventsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  event?: EventName;
  /** inclusive lower bound on timestamp */
  since?: string;
  /** exclusive upper bound on timestamp */
  until?: string;
}

/** Parameters of `webhooks.subscriptions.list` (the query of GET /v1/webhook/subscriptions). */
export interface WebhooksSubscriptionsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
}

/** Parameters of `webhooks.subscriptions.listDeliveries` (the query of GET /v1/webhook/subscriptions/{subscription_id}/deliveries). */
export interface WebhooksSubscriptionsListDeliveriesParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
}

/** Parameters of `webhooks.deliveries.list` (the query of GET /v1/webhook/deliveries). */
export interface WebhooksDeliveriesListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  event_id?: string;
  /** the event name, e.g. `session.created` or `webhook.test` */
  event?: string;
  /** webhook subscription id */
  subscription_id?: string;
  /** `dead`: all five attempts failed; the delivery is in the dead-letter queue */
  status?: DeliveryStatus;
  /** deliveries created at or after this time */
  since?: string;
  /** deliveries created before this time */
  until?: string;
}

/** Parameters of `webhooks.deadLetters.list` (the query of GET /v1/webhook/dead-letters). */
export interface WebhooksDeadLettersListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** the event name, e.g. `session.created` or `webhook.test` */
  event?: string;
  /** webhook subscription id */
  subscription_id?: string;
  /** `false`: only the letters not replayed by hand yet; `true`: only those that were (see `replayed_by`) */
  replayed?: boolean;
  /** deliveries created at or after this time */
  since?: string;
  /** deliveries created before this time */
  until?: string;
}

/** Parameters of `integrations.list` (the query of GET /v1/integrations). */
export interface IntegrationsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only those whose name contains this text, ignoring letter case */
  name?: string;
}

/** Parameters of `modelProviders.list` (the query of GET /v1/model-providers). */
export interface ModelProvidersListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only those whose name contains this text, ignoring letter case */
  name?: string;
}

/** Parameters of `cronJobs.list` (the query of GET /v1/cron). */
export interface CronJobsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
}

/** Parameters of `eventTriggers.list` (the query of GET /v1/event-trigger). */
export interface EventTriggersListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
}

/** Parameters of `knowledgeBases.list` (the query of GET /v1/kb). */
export interface KnowledgeBasesListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only those whose name contains this text, ignoring letter case */
  name?: string;
}

/** Parameters of `documents.list` (the query of GET /v1/kb/{kb_id}/documents). */
export interface DocumentsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** `parsing` from upload until the chunks are searchable; then `ready`, or `failed` with `error`. */
  status?: DocumentStatus;
}

/** Parameters of `documents.listChunks` (the query of GET /v1/document/{doc_id}/chunks). */
export interface DocumentsListChunksParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
}

/** Parameters of `skills.list` (the query of GET /v1/skills). */
export interface SkillsListParams {
  /**
   * 1-based page number
   * @default 1
   */
  page?: number;
  /**
   * items per page, 1-100
   * @default 20
   */
  page_size?: number;
  /** a `next_cursor` of this list: the page after it (`page` is then not used and `total` is not counted). Reads only that page however long the list, and skips or repeats nothing when items are added meanwhile */
  after?: string;
  /** `false`: do not count `total` on a page-number request (counting visits every matching item) */
  include_total?: boolean;
  /** only those whose name contains this text, ignoring letter case */
  name?: string;
}

/** Parameters of `costs.get` (the query of GET /v1/costs). */
export interface CostsGetParams {
  /** the period to report; the current one when absent */
  period?: string;
  /** `agent`: one group per agent (`agent_id`); `day`: one group per UTC day (`day`). The groups are added beside the period summary. */
  group_by?: 'agent' | 'day';
  /** with group_by: runs that ended at or after this (inclusive); default 30 days before `until` */
  since?: string;
  /** with group_by: runs that ended before this (exclusive); default now. At most 366 days after `since` */
  until?: string;
}

/** `client.agents`. */
export class Agents extends APIResource {
  /**
   * Create an agent.
   * `POST /v1/combo/agents`
   */
  create(params: CreateAgentRequest, options?: RequestOptions): APIPromise<Agent> {
    return this._client.request({ method: 'POST', path: '/v1/combo/agents', body: params }, options);
  }

  /**
   * List agents, newest first.
   * `GET /v1/combo/agents`
   */
  list(params?: AgentsListParams, options?: RequestOptions): PagePromise<Agent> {
    return this._client.requestPage({ method: 'GET', path: '/v1/combo/agents', query: params }, options);
  }

  /**
   * Get one agent.
   * `GET /v1/combo/agents/{agent_id}`
   */
  get(agentId: string, options?: RequestOptions): APIPromise<Agent> {
    return this._client.request({ method: 'GET', path: `/v1/combo/agents/${encodeURIComponent(agentId)}` }, options);
  }

  /**
   * Update an agent.
   * `PUT /v1/combo/agents/{agent_id}`
   */
  update(agentId: string, params?: UpdateAgentRequest, options?: RequestOptions): APIPromise<Agent> {
    return this._client.request({ method: 'PUT', path: `/v1/combo/agents/${encodeURIComponent(agentId)}`, body: params ?? {} }, options);
  }

  /**
   * Delete an agent.
   * `DELETE /v1/combo/agents/{agent_id}`
   */
  delete(agentId: string, params?: AgentsDeleteParams, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/combo/agents/${encodeURIComponent(agentId)}`, query: params }, options);
  }
}

/** `client.sessions.messages`. */
export class SessionsMessages extends APIResource {
  /**
   * Add a message to the session.
   * `POST /v1/combo/sessions/{session_id}/messages`
   */
  create(sessionId: string, params: CreateMessageRequest, options?: RequestOptions): APIPromise<Message> {
    return this._client.request(
      { method: 'POST', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}/messages`, body: params },
      options,
    );
  }

  /**
   * List the session's messages, oldest first.
   * `GET /v1/combo/sessions/{session_id}/messages`
   */
  list(sessionId: string, params?: SessionsMessagesListParams, options?: RequestOptions): PagePromise<Message> {
    return this._client.requestPage(
      { method: 'GET', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}/messages`, query: params },
      options,
    );
  }

  /**
   * Get one message (review reports link here).
   * `GET /v1/combo/sessions/{session_id}/messages/{message_id}`
   */
  get(sessionId: string, messageId: string, options?: RequestOptions): APIPromise<Message> {
    return this._client.request(
      { method: 'GET', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}/messages/${encodeURIComponent(messageId)}` },
      options,
    );
  }
}

/** `client.sessions`. */
export class Sessions extends APIResource {
  readonly messages: SessionsMessages;
  constructor(client: ComboCore) {
    super(client);
    this.messages = new SessionsMessages(client);
  }

  /**
   * Create a session on the agent.
   * `POST /v1/combo/agents/{agent_id}/sessions`
   */
  create(agentId: string, params?: CreateSessionRequest, options?: RequestOptions): APIPromise<Session> {
    return this._client.request(
      { method: 'POST', path: `/v1/combo/agents/${encodeURIComponent(agentId)}/sessions`, body: params ?? {} },
      options,
    );
  }

  /**
   * List the agent's sessions, newest first.
   * `GET /v1/combo/agents/{agent_id}/sessions`
   */
  list(agentId: string, params?: SessionsListParams, options?: RequestOptions): PagePromise<Session> {
    return this._client.requestPage(
      { method: 'GET', path: `/v1/combo/agents/${encodeURIComponent(agentId)}/sessions`, query: params },
      options,
    );
  }

  /**
   * List the tenant's sessions, newest first.
   * `GET /v1/combo/sessions`
   */
  listAll(params?: SessionsListAllParams, options?: RequestOptions): PagePromise<Session> {
    return this._client.requestPage({ method: 'GET', path: '/v1/combo/sessions', query: params }, options);
  }

  /**
   * Get one session.
   * `GET /v1/combo/sessions/{session_id}`
   */
  get(sessionId: string, options?: RequestOptions): APIPromise<Session> {
    return this._client.request({ method: 'GET', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}` }, options);
  }

  /**
   * Delete a session, its messages and its skill activations.
   * `DELETE /v1/combo/sessions/{session_id}`
   */
  delete(sessionId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}` }, options);
  }

  /**
   * Archive a session.
   * `POST /v1/combo/sessions/{session_id}/archive`
   */
  archive(sessionId: string, options?: RequestOptions): APIPromise<Session> {
    return this._client.request({ method: 'POST', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}/archive` }, options);
  }
}

/** `client.completions`: the generated methods; src/resources/completions.ts adds those written by hand. */
export class CompletionsBase extends APIResource {}

/** `client.runs.approvals`. */
export class RunsApprovals extends APIResource {
  /**
   * Approve or reject a tool call waiting for a person.
   * `POST /v1/combo/completions/{trace_id}/approvals/{approval_id}`
   */
  decide(traceId: string, approvalId: string, params: ApprovalDecisionRequest, options?: RequestOptions): APIPromise<ApprovalDecision> {
    return this._client.request(
      {
        method: 'POST',
        path: `/v1/combo/completions/${encodeURIComponent(traceId)}/approvals/${encodeURIComponent(approvalId)}`,
        body: params,
      },
      options,
    );
  }
}

/** `client.runs`: the generated methods; src/resources/runs.ts adds those written by hand. */
export class RunsBase extends APIResource {
  readonly approvals: RunsApprovals;
  constructor(client: ComboCore) {
    super(client);
    this.approvals = new RunsApprovals(client);
  }

  /**
   * An agent's runs, newest first.
   * `GET /v1/combo/agents/{agent_id}/completions`
   */
  listForAgent(agentId: string, params?: RunsListForAgentParams, options?: RequestOptions): PagePromise<CompletionRun> {
    return this._client.requestPage(
      { method: 'GET', path: `/v1/combo/agents/${encodeURIComponent(agentId)}/completions`, query: params },
      options,
    );
  }

  /**
   * A completion run: status, answer, cost, artifacts, error.
   * `GET /v1/combo/completions/{trace_id}`
   */
  get(traceId: string, options?: RequestOptions): APIPromise<CompletionRun> {
    return this._client.request({ method: 'GET', path: `/v1/combo/completions/${encodeURIComponent(traceId)}` }, options);
  }

  /**
   * Cancel a run: its model and tool calls stop and what it had is recorded.
   * `POST /v1/combo/completions/{trace_id}/cancel`
   */
  cancel(traceId: string, options?: RequestOptions): APIPromise<CompletionRun> {
    return this._client.request({ method: 'POST', path: `/v1/combo/completions/${encodeURIComponent(traceId)}/cancel` }, options);
  }

  /**
   * The tenant's runs, newest first.
   * `GET /v1/combo/completions`
   */
  list(params?: RunsListParams, options?: RequestOptions): PagePromise<CompletionRun> {
    return this._client.requestPage({ method: 'GET', path: '/v1/combo/completions', query: params }, options);
  }

  /**
   * A session's runs, newest first.
   * `GET /v1/combo/sessions/{session_id}/completions`
   */
  listForSession(sessionId: string, params?: RunsListForSessionParams, options?: RequestOptions): PagePromise<CompletionRun> {
    return this._client.requestPage(
      { method: 'GET', path: `/v1/combo/sessions/${encodeURIComponent(sessionId)}/completions`, query: params },
      options,
    );
  }
}

/** `client.scenarios`. */
export class Scenarios extends APIResource {
  /**
   * Supported scenarios and the processors each accepts.
   * `GET /v1/combo/scenarios`
   */
  list(options?: RequestOptions): APIPromise<ScenarioList> {
    return this._client.request({ method: 'GET', path: '/v1/combo/scenarios' }, options);
  }
}

/** `client.processors`. */
export class Processors extends APIResource {
  /**
   * Supported processors and their modes.
   * `GET /v1/combo/processors`
   */
  list(options?: RequestOptions): APIPromise<ProcessorList> {
    return this._client.request({ method: 'GET', path: '/v1/combo/processors' }, options);
  }
}

/** `client.auth`. */
export class Auth extends APIResource {
  /**
   * Exchange an API key (or a console token, to renew it) for a short-lived console token.
   * `POST /v1/auth/console-token`
   */
  consoleToken(params?: ConsoleTokenRequest, options?: RequestOptions): APIPromise<ConsoleToken> {
    return this._client.request({ method: 'POST', path: '/v1/auth/console-token', body: params ?? {} }, options);
  }
}

/** `client.apiKeys`. */
export class ApiKeys extends APIResource {
  /**
   * Create an API key.
   * `POST /v1/api-keys`
   */
  create(params: CreateApiKeyRequest, options?: RequestOptions): APIPromise<CreatedApiKey> {
    return this._client.request({ method: 'POST', path: '/v1/api-keys', body: params }, options);
  }

  /**
   * List API keys (never their secrets): your own, or every key of the tenant for an admin.
   * `GET /v1/api-keys`
   */
  list(params?: ApiKeysListParams, options?: RequestOptions): PagePromise<ApiKey> {
    return this._client.requestPage({ method: 'GET', path: '/v1/api-keys', query: params }, options);
  }

  /**
   * Revoke an API key (your own, or any key of the tenant for an admin).
   * `DELETE /v1/api-keys/{key_id}`
   */
  revoke(keyId: string, options?: RequestOptions): APIPromise<ApiKey> {
    return this._client.request({ method: 'DELETE', path: `/v1/api-keys/${encodeURIComponent(keyId)}` }, options);
  }
}

/** `client.events`. */
export class Events extends APIResource {
  /**
   * The tenant's internal event log, newest first.
   * `GET /v1/events`
   */
  list(params?: EventsListParams, options?: RequestOptions): PagePromise<Event> {
    return this._client.requestPage({ method: 'GET', path: '/v1/events', query: params }, options);
  }
}

/** `client.webhooks.subscriptions`. */
export class WebhooksSubscriptions extends APIResource {
  /**
   * Subscribe a URL to outbound events.
   * `POST /v1/webhook/subscriptions`
   */
  create(params: CreateWebhookSubscriptionRequest, options?: RequestOptions): APIPromise<WebhookSubscriptionWithSecret> {
    return this._client.request({ method: 'POST', path: '/v1/webhook/subscriptions', body: params }, options);
  }

  /**
   * List the tenant's subscriptions (without secrets).
   * `GET /v1/webhook/subscriptions`
   */
  list(params?: WebhooksSubscriptionsListParams, options?: RequestOptions): PagePromise<WebhookSubscription> {
    return this._client.requestPage({ method: 'GET', path: '/v1/webhook/subscriptions', query: params }, options);
  }

  /**
   * Get one subscription.
   * `GET /v1/webhook/subscriptions/{subscription_id}`
   */
  get(subscriptionId: string, options?: RequestOptions): APIPromise<WebhookSubscription> {
    return this._client.request({ method: 'GET', path: `/v1/webhook/subscriptions/${encodeURIComponent(subscriptionId)}` }, options);
  }

  /**
   * Update a subscription (fields present replace the stored ones).
   * `PUT /v1/webhook/subscriptions/{subscription_id}`
   */
  update(subscriptionId: string, params?: UpdateWebhookSubscriptionRequest, options?: RequestOptions): APIPromise<WebhookSubscription> {
    return this._client.request(
      { method: 'PUT', path: `/v1/webhook/subscriptions/${encodeURIComponent(subscriptionId)}`, body: params ?? {} },
      options,
    );
  }

  /**
   * Delete a subscription.
   * `DELETE /v1/webhook/subscriptions/{subscription_id}`
   */
  delete(subscriptionId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/webhook/subscriptions/${encodeURIComponent(subscriptionId)}` }, options);
  }

  /**
   * Replace the signing secret.
   * `POST /v1/webhook/subscriptions/{subscription_id}/rotate-secret`
   */
  rotateSecret(
    subscriptionId: string,
    params?: RotateWebhookSecretRequest,
    options?: RequestOptions,
  ): APIPromise<WebhookSubscriptionWithSecret> {
    return this._client.request(
      { method: 'POST', path: `/v1/webhook/subscriptions/${encodeURIComponent(subscriptionId)}/rotate-secret`, body: params ?? {} },
      options,
    );
  }

  /**
   * Send a test event.
   * `POST /v1/webhook/subscriptions/{subscription_id}/test`
   */
  test(subscriptionId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this._client.request({ method: 'POST', path: `/v1/webhook/subscriptions/${encodeURIComponent(subscriptionId)}/test` }, options);
  }

  /**
   * A subscription's deliveries with every attempt, newest first.
   * `GET /v1/webhook/subscriptions/{subscription_id}/deliveries`
   */
  listDeliveries(
    subscriptionId: string,
    params?: WebhooksSubscriptionsListDeliveriesParams,
    options?: RequestOptions,
  ): PagePromise<WebhookDelivery> {
    return this._client.requestPage(
      { method: 'GET', path: `/v1/webhook/subscriptions/${encodeURIComponent(subscriptionId)}/deliveries`, query: params },
      options,
    );
  }
}

/** `client.webhooks.deliveries`. */
export class WebhooksDeliveries extends APIResource {
  /**
   * Deliveries with every attempt (status, latency, error), filterable by event, subscription, status and time.
   * `GET /v1/webhook/deliveries`
   */
  list(params?: WebhooksDeliveriesListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this._client.requestPage({ method: 'GET', path: '/v1/webhook/deliveries', query: params }, options);
  }

  /**
   * One delivery with every attempt.
   * `GET /v1/webhook/deliveries/{delivery_id}`
   */
  get(deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this._client.request({ method: 'GET', path: `/v1/webhook/deliveries/${encodeURIComponent(deliveryId)}` }, options);
  }
}

/** `client.webhooks.deadLetters`. */
export class WebhooksDeadLetters extends APIResource {
  /**
   * The dead-letter queue: deliveries whose five attempts all failed.
   * `GET /v1/webhook/dead-letters`
   */
  list(params?: WebhooksDeadLettersListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this._client.requestPage({ method: 'GET', path: '/v1/webhook/dead-letters', query: params }, options);
  }

  /**
   * Replay a dead letter by hand.
   * `POST /v1/webhook/dead-letters/{delivery_id}/replay`
   */
  replay(deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this._client.request({ method: 'POST', path: `/v1/webhook/dead-letters/${encodeURIComponent(deliveryId)}/replay` }, options);
  }
}

/** `client.webhooks.replays`. */
export class WebhooksReplays extends APIResource {
  /**
   * Replay historical events by time range.
   * `POST /v1/webhook/replays`
   */
  create(params: WebhookReplayRequest, options?: RequestOptions): APIPromise<WebhookReplay> {
    return this._client.request({ method: 'POST', path: '/v1/webhook/replays', body: params }, options);
  }

  /**
   * Progress of a historical replay.
   * `GET /v1/webhook/replays/{replay_id}`
   */
  get(replayId: string, options?: RequestOptions): APIPromise<WebhookReplay> {
    return this._client.request({ method: 'GET', path: `/v1/webhook/replays/${encodeURIComponent(replayId)}` }, options);
  }
}

/** `client.webhooks`. */
export class Webhooks extends APIResource {
  readonly subscriptions: WebhooksSubscriptions;
  readonly deliveries: WebhooksDeliveries;
  readonly deadLetters: WebhooksDeadLetters;
  readonly replays: WebhooksReplays;
  constructor(client: ComboCore) {
    super(client);
    this.subscriptions = new WebhooksSubscriptions(client);
    this.deliveries = new WebhooksDeliveries(client);
    this.deadLetters = new WebhooksDeadLetters(client);
    this.replays = new WebhooksReplays(client);
  }
}

/** `client.inbound`: the generated methods; src/resources/inbound.ts adds those written by hand. */
export class InboundBase extends APIResource {}

/** `client.integrations`. */
export class Integrations extends APIResource {
  /**
   * Set up inbound webhooks from one system (channel).
   * `POST /v1/integrations`
   */
  create(params: CreateIntegrationRequest, options?: RequestOptions): APIPromise<IntegrationWithSecret> {
    return this._client.request({ method: 'POST', path: '/v1/integrations', body: params }, options);
  }

  /**
   * List the tenant's integrations (without secrets).
   * `GET /v1/integrations`
   */
  list(params?: IntegrationsListParams, options?: RequestOptions): PagePromise<Integration> {
    return this._client.requestPage({ method: 'GET', path: '/v1/integrations', query: params }, options);
  }

  /**
   * Get one integration (without its secret).
   * `GET /v1/integrations/{integration_id}`
   */
  get(integrationId: string, options?: RequestOptions): APIPromise<Integration> {
    return this._client.request({ method: 'GET', path: `/v1/integrations/${encodeURIComponent(integrationId)}` }, options);
  }

  /**
   * Delete an integration.
   * `DELETE /v1/integrations/{integration_id}`
   */
  delete(integrationId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/integrations/${encodeURIComponent(integrationId)}` }, options);
  }

  /**
   * Replace the shared secret.
   * `POST /v1/integrations/{integration_id}/rotate`
   */
  rotateSecret(
    integrationId: string,
    params?: RotateIntegrationSecretRequest,
    options?: RequestOptions,
  ): APIPromise<IntegrationWithSecret> {
    return this._client.request(
      { method: 'POST', path: `/v1/integrations/${encodeURIComponent(integrationId)}/rotate`, body: params ?? {} },
      options,
    );
  }
}

/** `client.modelProviders`. */
export class ModelProviders extends APIResource {
  /**
   * Add a model provider agents can use.
   * `POST /v1/model-providers`
   */
  create(params: CreateModelProviderRequest, options?: RequestOptions): APIPromise<ModelProvider> {
    return this._client.request({ method: 'POST', path: '/v1/model-providers', body: params }, options);
  }

  /**
   * List the tenant's model providers, newest first (without secrets).
   * `GET /v1/model-providers`
   */
  list(params?: ModelProvidersListParams, options?: RequestOptions): PagePromise<ModelProvider> {
    return this._client.requestPage({ method: 'GET', path: '/v1/model-providers', query: params }, options);
  }

  /**
   * Get one model provider (without secrets).
   * `GET /v1/model-providers/{provider_id}`
   */
  get(providerId: string, options?: RequestOptions): APIPromise<ModelProvider> {
    return this._client.request({ method: 'GET', path: `/v1/model-providers/${encodeURIComponent(providerId)}` }, options);
  }

  /**
   * Update a model provider.
   * `PUT /v1/model-providers/{provider_id}`
   */
  update(providerId: string, params?: UpdateModelProviderRequest, options?: RequestOptions): APIPromise<ModelProvider> {
    return this._client.request(
      { method: 'PUT', path: `/v1/model-providers/${encodeURIComponent(providerId)}`, body: params ?? {} },
      options,
    );
  }

  /**
   * Delete a model provider.
   * `DELETE /v1/model-providers/{provider_id}`
   */
  delete(providerId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/model-providers/${encodeURIComponent(providerId)}` }, options);
  }

  /**
   * Call the provider once and say how long it took.
   * `POST /v1/model-providers/{provider_id}/check`
   */
  check(providerId: string, params?: CheckModelProviderRequest, options?: RequestOptions): APIPromise<ModelProviderCheck> {
    return this._client.request(
      { method: 'POST', path: `/v1/model-providers/${encodeURIComponent(providerId)}/check`, body: params ?? {} },
      options,
    );
  }
}

/** `client.cronJobs`. */
export class CronJobs extends APIResource {
  /**
   * Create a job.
   * `POST /v1/cron`
   */
  create(params: CreateCronJobRequest, options?: RequestOptions): APIPromise<CronJob> {
    return this._client.request({ method: 'POST', path: '/v1/cron', body: params }, options);
  }

  /**
   * List the tenant's jobs, newest first.
   * `GET /v1/cron`
   */
  list(params?: CronJobsListParams, options?: RequestOptions): PagePromise<CronJob> {
    return this._client.requestPage({ method: 'GET', path: '/v1/cron', query: params }, options);
  }

  /**
   * Get one job with its next and recent runs.
   * `GET /v1/cron/{cron_id}`
   */
  get(cronId: string, options?: RequestOptions): APIPromise<CronJob> {
    return this._client.request({ method: 'GET', path: `/v1/cron/${encodeURIComponent(cronId)}` }, options);
  }

  /**
   * Change a job: pause or resume it, or change its settings.
   * `PUT /v1/cron/{cron_id}`
   */
  update(cronId: string, params?: UpdateCronJobRequest, options?: RequestOptions): APIPromise<CronJob> {
    return this._client.request({ method: 'PUT', path: `/v1/cron/${encodeURIComponent(cronId)}`, body: params ?? {} }, options);
  }

  /**
   * Delete a job.
   * `DELETE /v1/cron/{cron_id}`
   */
  delete(cronId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/cron/${encodeURIComponent(cronId)}` }, options);
  }

  /**
   * Run a job now.
   * `POST /v1/cron/{cron_id}/trigger`
   */
  trigger(cronId: string, options?: RequestOptions): APIPromise<CronJobTriggered> {
    return this._client.request({ method: 'POST', path: `/v1/cron/${encodeURIComponent(cronId)}/trigger` }, options);
  }

  /**
   * Run a job for past due times.
   * `POST /v1/cron/{cron_id}/backfill`
   */
  backfill(cronId: string, params: BackfillCronJobRequest, options?: RequestOptions): APIPromise<CronJobBackfill> {
    return this._client.request({ method: 'POST', path: `/v1/cron/${encodeURIComponent(cronId)}/backfill`, body: params }, options);
  }
}

/** `client.eventTriggers`. */
export class EventTriggers extends APIResource {
  /**
   * Session templates a trigger may name.
   * `GET /v1/event-trigger/templates`
   */
  templates(options?: RequestOptions): APIPromise<SessionTemplateList> {
    return this._client.request({ method: 'GET', path: '/v1/event-trigger/templates' }, options);
  }

  /**
   * Create an event trigger.
   * `POST /v1/event-trigger`
   */
  create(params: CreateEventTriggerRequest, options?: RequestOptions): APIPromise<EventTrigger> {
    return this._client.request({ method: 'POST', path: '/v1/event-trigger', body: params }, options);
  }

  /**
   * List event triggers, newest first.
   * `GET /v1/event-trigger`
   */
  list(params?: EventTriggersListParams, options?: RequestOptions): PagePromise<EventTrigger> {
    return this._client.requestPage({ method: 'GET', path: '/v1/event-trigger', query: params }, options);
  }

  /**
   * Preview a trigger on a sample event: the normalised event, the match and the task, nothing started.
   * `POST /v1/event-trigger/preview`
   */
  preview(params: EventTriggerPreviewRequest, options?: RequestOptions): APIPromise<EventTriggerPreview> {
    return this._client.request({ method: 'POST', path: '/v1/event-trigger/preview', body: params }, options);
  }

  /**
   * Get one event trigger.
   * `GET /v1/event-trigger/{trigger_id}`
   */
  get(triggerId: string, options?: RequestOptions): APIPromise<EventTrigger> {
    return this._client.request({ method: 'GET', path: `/v1/event-trigger/${encodeURIComponent(triggerId)}` }, options);
  }

  /**
   * Update an event trigger.
   * `PUT /v1/event-trigger/{trigger_id}`
   */
  update(triggerId: string, params?: UpdateEventTriggerRequest, options?: RequestOptions): APIPromise<EventTrigger> {
    return this._client.request({ method: 'PUT', path: `/v1/event-trigger/${encodeURIComponent(triggerId)}`, body: params ?? {} }, options);
  }

  /**
   * Delete an event trigger.
   * `DELETE /v1/event-trigger/{trigger_id}`
   */
  delete(triggerId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/event-trigger/${encodeURIComponent(triggerId)}` }, options);
  }
}

/** `client.parsers`. */
export class Parsers extends APIResource {
  /**
   * Parsers a document can be split with.
   * `GET /v1/kb/parsers`
   */
  list(options?: RequestOptions): APIPromise<ParserList> {
    return this._client.request({ method: 'GET', path: '/v1/kb/parsers' }, options);
  }
}

/** `client.embeddingModels`. */
export class EmbeddingModels extends APIResource {
  /**
   * Embedding models a knowledge base can use.
   * `GET /v1/kb/embedding-models`
   */
  list(options?: RequestOptions): APIPromise<EmbeddingModelList> {
    return this._client.request({ method: 'GET', path: '/v1/kb/embedding-models' }, options);
  }
}

/** `client.knowledgeBases`. */
export class KnowledgeBases extends APIResource {
  /**
   * Create a knowledge base.
   * `POST /v1/kb`
   */
  create(params: CreateKnowledgeBaseRequest, options?: RequestOptions): APIPromise<KnowledgeBase> {
    return this._client.request({ method: 'POST', path: '/v1/kb', body: params }, options);
  }

  /**
   * List the tenant's knowledge bases.
   * `GET /v1/kb`
   */
  list(params?: KnowledgeBasesListParams, options?: RequestOptions): PagePromise<KnowledgeBase> {
    return this._client.requestPage({ method: 'GET', path: '/v1/kb', query: params }, options);
  }

  /**
   * Get one knowledge base.
   * `GET /v1/kb/{kb_id}`
   */
  get(kbId: string, options?: RequestOptions): APIPromise<KnowledgeBase> {
    return this._client.request({ method: 'GET', path: `/v1/kb/${encodeURIComponent(kbId)}` }, options);
  }

  /**
   * Update a knowledge base (fields present replace the stored ones).
   * `PUT /v1/kb/{kb_id}`
   */
  update(kbId: string, params?: UpdateKnowledgeBaseRequest, options?: RequestOptions): APIPromise<KnowledgeBase> {
    return this._client.request({ method: 'PUT', path: `/v1/kb/${encodeURIComponent(kbId)}`, body: params ?? {} }, options);
  }

  /**
   * Delete a knowledge base with its documents and chunks.
   * `DELETE /v1/kb/{kb_id}`
   */
  delete(kbId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/kb/${encodeURIComponent(kbId)}` }, options);
  }
}

/** `client.documents`: the generated methods; src/resources/documents.ts adds those written by hand. */
export class DocumentsBase extends APIResource {
  /**
   * List a knowledge base's documents.
   * `GET /v1/kb/{kb_id}/documents`
   */
  list(kbId: string, params?: DocumentsListParams, options?: RequestOptions): PagePromise<Document> {
    return this._client.requestPage({ method: 'GET', path: `/v1/kb/${encodeURIComponent(kbId)}/documents`, query: params }, options);
  }

  /**
   * Upload a document into a knowledge base.
   * `POST /v1/document`
   */
  upload(params: UploadDocumentRequest, options?: UploadOptions): APIPromise<Document> {
    return this._client.request({ method: 'POST', path: '/v1/document', multipart: params, fileFields: ['file'] }, options);
  }

  /**
   * Get a document and its parsing progress.
   * `GET /v1/document/{doc_id}`
   */
  get(docId: string, options?: RequestOptions): APIPromise<Document> {
    return this._client.request({ method: 'GET', path: `/v1/document/${encodeURIComponent(docId)}` }, options);
  }

  /**
   * Delete a document; its chunks leave the index.
   * `DELETE /v1/document/{doc_id}`
   */
  delete(docId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/document/${encodeURIComponent(docId)}` }, options);
  }

  /**
   * A document's chunks in document order (chunk viewer).
   * `GET /v1/document/{doc_id}/chunks`
   */
  listChunks(docId: string, params?: DocumentsListChunksParams, options?: RequestOptions): PagePromise<DocumentChunk> {
    return this._client.requestPage({ method: 'GET', path: `/v1/document/${encodeURIComponent(docId)}/chunks`, query: params }, options);
  }

  /**
   * Parse a document again.
   * `POST /v1/document/{doc_id}/reparse`
   */
  reparse(docId: string, params?: ReparseDocumentRequest, options?: RequestOptions): APIPromise<Document> {
    return this._client.request({ method: 'POST', path: `/v1/document/${encodeURIComponent(docId)}/reparse`, body: params ?? {} }, options);
  }
}

/** `client.chunks`. */
export class Chunks extends APIResource {
  /**
   * Hybrid (vector + full-text) search over knowledge bases.
   * `POST /v1/chunk/search`
   */
  search(params: ChunkSearchRequest, options?: RequestOptions): APIPromise<ChunkSearchResult> {
    return this._client.request({ method: 'POST', path: '/v1/chunk/search', body: params, retryGatewayErrors: true }, options);
  }
}

/** `client.skills`. */
export class Skills extends APIResource {
  /**
   * List the tenant's installed skills, newest first.
   * `GET /v1/skills`
   */
  list(params?: SkillsListParams, options?: RequestOptions): PagePromise<Skill> {
    return this._client.requestPage({ method: 'GET', path: '/v1/skills', query: params }, options);
  }

  /**
   * Install a skill from its manifest.
   * `POST /v1/skills/install`
   */
  install(params: InstallSkillRequest, options?: RequestOptions): APIPromise<Skill> {
    return this._client.request({ method: 'POST', path: '/v1/skills/install', body: params }, options);
  }

  /**
   * Get one skill with its tools.
   * `GET /v1/skills/{skill_id}`
   */
  get(skillId: string, options?: RequestOptions): APIPromise<Skill> {
    return this._client.request({ method: 'GET', path: `/v1/skills/${encodeURIComponent(skillId)}` }, options);
  }

  /**
   * Uninstall a skill.
   * `DELETE /v1/skills/{skill_id}`
   */
  delete(skillId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/skills/${encodeURIComponent(skillId)}` }, options);
  }

  /**
   * Activate a skill on a session.
   * `POST /v1/skills/{skill_id}/activate`
   */
  activate(skillId: string, params: ActivateSkillRequest, options?: RequestOptions): APIPromise<SkillActivation> {
    return this._client.request({ method: 'POST', path: `/v1/skills/${encodeURIComponent(skillId)}/activate`, body: params }, options);
  }
}

/** `client.files`. */
export class Files extends APIResource {
  /**
   * Upload a file completions can read as an attachment.
   * `POST /v1/files`
   */
  upload(params: UploadFileRequest, options?: UploadOptions): APIPromise<File> {
    return this._client.request({ method: 'POST', path: '/v1/files', multipart: params, fileFields: ['file'] }, options);
  }

  /**
   * Get a file's details and the start of its text.
   * `GET /v1/files/{file_id}`
   */
  get(fileId: string, options?: RequestOptions): APIPromise<File> {
    return this._client.request({ method: 'GET', path: `/v1/files/${encodeURIComponent(fileId)}` }, options);
  }

  /**
   * Delete a file.
   * `DELETE /v1/files/{file_id}`
   */
  delete(fileId: string, options?: RequestOptions): APIPromise<Deleted> {
    return this._client.request({ method: 'DELETE', path: `/v1/files/${encodeURIComponent(fileId)}` }, options);
  }
}

/** `client.costs`. */
export class Costs extends APIResource {
  /**
   * The tenant's completion costs in a period, and its threshold; optionally by agent or by day.
   * `GET /v1/costs`
   */
  get(params?: CostsGetParams, options?: RequestOptions): APIPromise<CostReport> {
    return this._client.request({ method: 'GET', path: '/v1/costs', query: params }, options);
  }

  /**
   * Set the tenant's threshold per period, in tokens, in money or both.
   * `PUT /v1/costs/threshold`
   */
  setThreshold(params?: SetCostThresholdRequest, options?: RequestOptions): APIPromise<CostSummary> {
    return this._client.request({ method: 'PUT', path: '/v1/costs/threshold', body: params ?? {} }, options);
  }

  /**
   * Remove the tenant's own threshold: the installation default applies again.
   * `DELETE /v1/costs/threshold`
   */
  resetThreshold(options?: RequestOptions): APIPromise<CostSummary> {
    return this._client.request({ method: 'DELETE', path: '/v1/costs/threshold' }, options);
  }
}

/** `client.service`. */
export class Service extends APIResource {
  /**
   * Liveness: the process answers (no dependency is checked).
   * `GET /v1/health`
   */
  health(options?: RequestOptions): APIPromise<Health> {
    return this._client.request({ method: 'GET', path: '/v1/health', authenticated: false }, options);
  }

  /**
   * Readiness: Temporal, MongoDB and Elasticsearch answer.
   * Not retried unless `options.maxRetries` says so: a failure status is the answer.
   * `GET /v1/ready`
   */
  ready(options?: RequestOptions): APIPromise<Readiness> {
    return this._client.request(
      { method: 'GET', path: '/v1/ready', authenticated: false },
      { ...options, maxRetries: options?.maxRetries ?? 0 },
    );
  }

  /**
   * This OpenAPI 3 document.
   * `GET /v1/openapi.json`
   */
  openapi(options?: RequestOptions): APIPromise<Record<string, unknown>> {
    return this._client.request({ method: 'GET', path: '/v1/openapi.json', authenticated: false, raw: true }, options);
  }
}

/** The classes written by hand on top of the generated ones (src/resources/). */
export interface HandWrittenResources {
  Completions: new (client: ComboCore) => Completions;
  Runs: new (client: ComboCore) => Runs;
  Inbound: new (client: ComboCore) => Inbound;
  Documents: new (client: ComboCore) => Documents;
}

/** The client with its resources; `Combo` (src/client.ts) passes it the classes written by hand. */
export class ComboBase extends ComboCore {
  /** `client.agents` */
  readonly agents: Agents;
  /** `client.sessions` */
  readonly sessions: Sessions;
  /** `client.completions` */
  readonly completions: Completions;
  /** `client.runs` */
  readonly runs: Runs;
  /** `client.scenarios` */
  readonly scenarios: Scenarios;
  /** `client.processors` */
  readonly processors: Processors;
  /** `client.auth` */
  readonly auth: Auth;
  /** `client.apiKeys` */
  readonly apiKeys: ApiKeys;
  /** `client.events` */
  readonly events: Events;
  /** `client.webhooks` */
  readonly webhooks: Webhooks;
  /** `client.inbound` */
  readonly inbound: Inbound;
  /** `client.integrations` */
  readonly integrations: Integrations;
  /** `client.modelProviders` */
  readonly modelProviders: ModelProviders;
  /** `client.cronJobs` */
  readonly cronJobs: CronJobs;
  /** `client.eventTriggers` */
  readonly eventTriggers: EventTriggers;
  /** `client.parsers` */
  readonly parsers: Parsers;
  /** `client.embeddingModels` */
  readonly embeddingModels: EmbeddingModels;
  /** `client.knowledgeBases` */
  readonly knowledgeBases: KnowledgeBases;
  /** `client.documents` */
  readonly documents: Documents;
  /** `client.chunks` */
  readonly chunks: Chunks;
  /** `client.skills` */
  readonly skills: Skills;
  /** `client.files` */
  readonly files: Files;
  /** `client.costs` */
  readonly costs: Costs;
  /** `client.service` */
  readonly service: Service;

  constructor(options: ClientOptions, hand: HandWrittenResources) {
    super(options);
    this.agents = new Agents(this);
    this.sessions = new Sessions(this);
    this.completions = new hand.Completions(this);
    this.runs = new hand.Runs(this);
    this.scenarios = new Scenarios(this);
    this.processors = new Processors(this);
    this.auth = new Auth(this);
    this.apiKeys = new ApiKeys(this);
    this.events = new Events(this);
    this.webhooks = new Webhooks(this);
    this.inbound = new hand.Inbound(this);
    this.integrations = new Integrations(this);
    this.modelProviders = new ModelProviders(this);
    this.cronJobs = new CronJobs(this);
    this.eventTriggers = new EventTriggers(this);
    this.parsers = new Parsers(this);
    this.embeddingModels = new EmbeddingModels(this);
    this.knowledgeBases = new KnowledgeBases(this);
    this.documents = new hand.Documents(this);
    this.chunks = new Chunks(this);
    this.skills = new Skills(this);
    this.files = new Files(this);
    this.costs = new Costs(this);
    this.service = new Service(this);
  }
}
