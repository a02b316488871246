// Every workflow the worker registers. Workflow code imports only @temporalio/workflow, activity
// types and pure modules: the bundler rejects Node built-ins.
export { maintenanceWorkflow } from './maintenance';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { webhookReplayWorkflow } from './webhook-replay';
export { documentIngestWorkflow } from './document-ingest';
export { completionWorkflow } from './completion';
export { agentTaskWorkflow } from './agent-task';
export { sessionRunsWorkflow } from './session-runs';
