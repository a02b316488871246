/**
 * Where each operation of /v1/openapi.json lives in the official clients: its resource (a path of
 * camelCase names, `client.webhooks.subscriptions`) and method (camelCase; the Python client
 * snake_cases both). One table for both clients, so their surfaces have the same shape. An
 * operation of the document missing here, or named here but gone from the document, fails the
 * generator (and so CI): a new operation is given its place in the clients when it is added.
 */
export interface OperationPlace {
  resource: string[];
  method: string;
  /**
   * Written by hand in each client on top of the generated resource (the generated method is then
   * not emitted): completions (JSON that follows a 202, or a resumable stream), a run's event
   * stream and the signed inbound calls.
   */
  handWritten?: boolean;
  /** Not retried unless the caller asks: a failure status is the answer (readiness: 503 = not ready). */
  noRetries?: boolean;
}

export const OPERATION_PLACES: Record<string, OperationPlace> = {
  createAgent: { resource: ['agents'], method: 'create' },
  listAgents: { resource: ['agents'], method: 'list' },
  getAgent: { resource: ['agents'], method: 'get' },
  updateAgent: { resource: ['agents'], method: 'update' },
  deleteAgent: { resource: ['agents'], method: 'delete' },

  createSession: { resource: ['sessions'], method: 'create' },
  listSessions: { resource: ['sessions'], method: 'list' },
  listTenantSessions: { resource: ['sessions'], method: 'listAll' },
  getSession: { resource: ['sessions'], method: 'get' },
  deleteSession: { resource: ['sessions'], method: 'delete' },
  archiveSession: { resource: ['sessions'], method: 'archive' },
  addMessage: { resource: ['sessions', 'messages'], method: 'create' },
  listMessages: { resource: ['sessions', 'messages'], method: 'list' },
  getMessage: { resource: ['sessions', 'messages'], method: 'get' },

  createCompletion: { resource: ['completions'], method: 'create', handWritten: true },
  getCompletion: { resource: ['runs'], method: 'get' },
  listCompletions: { resource: ['runs'], method: 'list' },
  listAgentCompletions: { resource: ['runs'], method: 'listForAgent' },
  listSessionCompletions: { resource: ['runs'], method: 'listForSession' },
  resumeCompletionStream: { resource: ['runs'], method: 'events', handWritten: true },
  cancelCompletion: { resource: ['runs'], method: 'cancel' },
  decideToolApproval: { resource: ['runs', 'approvals'], method: 'decide' },

  listScenarios: { resource: ['scenarios'], method: 'list' },
  listProcessors: { resource: ['processors'], method: 'list' },

  createConsoleToken: { resource: ['auth'], method: 'consoleToken' },
  createApiKey: { resource: ['apiKeys'], method: 'create' },
  listApiKeys: { resource: ['apiKeys'], method: 'list' },
  revokeApiKey: { resource: ['apiKeys'], method: 'revoke' },

  listEvents: { resource: ['events'], method: 'list' },

  createWebhookSubscription: { resource: ['webhooks', 'subscriptions'], method: 'create' },
  listWebhookSubscriptions: { resource: ['webhooks', 'subscriptions'], method: 'list' },
  getWebhookSubscription: { resource: ['webhooks', 'subscriptions'], method: 'get' },
  updateWebhookSubscription: { resource: ['webhooks', 'subscriptions'], method: 'update' },
  deleteWebhookSubscription: { resource: ['webhooks', 'subscriptions'], method: 'delete' },
  rotateWebhookSecret: { resource: ['webhooks', 'subscriptions'], method: 'rotateSecret' },
  testWebhookSubscription: { resource: ['webhooks', 'subscriptions'], method: 'test' },
  listSubscriptionDeliveries: { resource: ['webhooks', 'subscriptions'], method: 'listDeliveries' },
  listWebhookDeliveries: { resource: ['webhooks', 'deliveries'], method: 'list' },
  getWebhookDelivery: { resource: ['webhooks', 'deliveries'], method: 'get' },
  listDeadLetters: { resource: ['webhooks', 'deadLetters'], method: 'list' },
  replayDeadLetter: { resource: ['webhooks', 'deadLetters'], method: 'replay' },
  replayWebhookEvents: { resource: ['webhooks', 'replays'], method: 'create' },
  getWebhookReplay: { resource: ['webhooks', 'replays'], method: 'get' },

  // Signed with an integration's secret rather than sent with the API key.
  receiveInboundWebhook: { resource: ['inbound'], method: 'send', handWritten: true },
  receiveGenericWebhook: { resource: ['inbound'], method: 'sendGeneric', handWritten: true },

  createIntegration: { resource: ['integrations'], method: 'create' },
  listIntegrations: { resource: ['integrations'], method: 'list' },
  getIntegration: { resource: ['integrations'], method: 'get' },
  deleteIntegration: { resource: ['integrations'], method: 'delete' },
  rotateIntegrationSecret: { resource: ['integrations'], method: 'rotateSecret' },

  createModelProvider: { resource: ['modelProviders'], method: 'create' },
  listModelProviders: { resource: ['modelProviders'], method: 'list' },
  getModelProvider: { resource: ['modelProviders'], method: 'get' },
  updateModelProvider: { resource: ['modelProviders'], method: 'update' },
  deleteModelProvider: { resource: ['modelProviders'], method: 'delete' },
  checkModelProvider: { resource: ['modelProviders'], method: 'check' },

  createCronJob: { resource: ['cronJobs'], method: 'create' },
  listCronJobs: { resource: ['cronJobs'], method: 'list' },
  getCronJob: { resource: ['cronJobs'], method: 'get' },
  updateCronJob: { resource: ['cronJobs'], method: 'update' },
  deleteCronJob: { resource: ['cronJobs'], method: 'delete' },
  triggerCronJob: { resource: ['cronJobs'], method: 'trigger' },
  backfillCronJob: { resource: ['cronJobs'], method: 'backfill' },

  listSessionTemplates: { resource: ['eventTriggers'], method: 'templates' },
  createEventTrigger: { resource: ['eventTriggers'], method: 'create' },
  listEventTriggers: { resource: ['eventTriggers'], method: 'list' },
  getEventTrigger: { resource: ['eventTriggers'], method: 'get' },
  updateEventTrigger: { resource: ['eventTriggers'], method: 'update' },
  deleteEventTrigger: { resource: ['eventTriggers'], method: 'delete' },
  previewEventTrigger: { resource: ['eventTriggers'], method: 'preview' },

  listParsers: { resource: ['parsers'], method: 'list' },
  listEmbeddingModels: { resource: ['embeddingModels'], method: 'list' },
  createKnowledgeBase: { resource: ['knowledgeBases'], method: 'create' },
  listKnowledgeBases: { resource: ['knowledgeBases'], method: 'list' },
  getKnowledgeBase: { resource: ['knowledgeBases'], method: 'get' },
  updateKnowledgeBase: { resource: ['knowledgeBases'], method: 'update' },
  deleteKnowledgeBase: { resource: ['knowledgeBases'], method: 'delete' },
  listDocuments: { resource: ['documents'], method: 'list' },
  uploadDocument: { resource: ['documents'], method: 'upload' },
  getDocument: { resource: ['documents'], method: 'get' },
  deleteDocument: { resource: ['documents'], method: 'delete' },
  reparseDocument: { resource: ['documents'], method: 'reparse' },
  listDocumentChunks: { resource: ['documents'], method: 'listChunks' },
  searchChunks: { resource: ['chunks'], method: 'search' },

  listSkills: { resource: ['skills'], method: 'list' },
  installSkill: { resource: ['skills'], method: 'install' },
  getSkill: { resource: ['skills'], method: 'get' },
  deleteSkill: { resource: ['skills'], method: 'delete' },
  activateSkill: { resource: ['skills'], method: 'activate' },

  uploadFile: { resource: ['files'], method: 'upload' },
  getFile: { resource: ['files'], method: 'get' },
  deleteFile: { resource: ['files'], method: 'delete' },

  getCosts: { resource: ['costs'], method: 'get' },
  setCostThreshold: { resource: ['costs'], method: 'setThreshold' },
  resetCostThreshold: { resource: ['costs'], method: 'resetThreshold' },

  health: { resource: ['service'], method: 'health' },
  ready: { resource: ['service'], method: 'ready', noRetries: true },
  openapi: { resource: ['service'], method: 'openapi' },
};

/** Operations that are pages for a browser, not API calls: no client method. */
export const BROWSER_PAGES = new Set(['docs', 'docsAsset']);

/**
 * Other ecosystems' protocols, which their own clients call: the OpenAI-compatible API (OpenAI's
 * SDKs, docs/api/openai-compatible.md), Temporal's remote codec (the Temporal UI and CLI) and the
 * MCP server with its OAuth metadata (MCP hosts and the MCP SDKs, docs/mcp.md). Ours have no method
 * for them.
 */
export const OTHER_CLIENTS_OPERATIONS = new Set([
  'listOpenAIModels',
  'getOpenAIModel',
  'createOpenAIChatCompletion',
  'encodeTemporalPayloads',
  'decodeTemporalPayloads',
  'mcp',
  'mcpOpenStream',
  'mcpEndSession',
  'mcpProtectedResource',
  'protectedResource',
]);
