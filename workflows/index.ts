// Every workflow the worker registers. Workflow code imports only @temporalio/workflow, activity
// types and pure modules: the bundler rejects Node built-ins.
export { maintenanceWorkflow } from './maintenance';
