import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes every workflow carries so an operator can find it in the Temporal UI
 * (e.g. `TenantId = "acme" AND AgentId = "agt_…"`). stack/lib.sh registers the same names on the
 * dev server; docker-compose registers them with `temporal operator search-attribute create`.
 */
export const TenantId = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const AgentId = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const SessionId = defineSearchAttributeKey('SessionId', SearchAttributeType.KEYWORD);
export const TraceId = defineSearchAttributeKey('TraceId', SearchAttributeType.KEYWORD);
export const EventId = defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD);
export const SubscriptionId = defineSearchAttributeKey('SubscriptionId', SearchAttributeType.KEYWORD);

/** The tenant value of workflows that belong to the installation rather than to a customer. */
export const SYSTEM_TENANT = '_system';
export const KbId = defineSearchAttributeKey('KbId', SearchAttributeType.KEYWORD);
export const DocId = defineSearchAttributeKey('DocId', SearchAttributeType.KEYWORD);
/** The event trigger that started an agent task. */
export const TriggerId = defineSearchAttributeKey('TriggerId', SearchAttributeType.KEYWORD);
/** The cron job whose schedule started an agent task. */
export const CronId = defineSearchAttributeKey('CronId', SearchAttributeType.KEYWORD);

/*
 * Each kind of workflow's search attributes, built here once: commands/workflow-starts.ts uses them
 * for the workflows it starts, and parent workflows for the children they start (workflow code
 * cannot import the Temporal client module).
 */

/** A completion: by tenant, agent, session and trace. */
export const completionSearchAttributes = (run: { tenantId: string; agentId: string; sessionId: string; traceId: string }) => [
  { key: TenantId, value: run.tenantId },
  { key: AgentId, value: run.agentId },
  { key: SessionId, value: run.sessionId },
  { key: TraceId, value: run.traceId },
];

/** A completion's memo in the Temporal UI: its route and the start of its question. */
export const completionMemo = (run: { route: { text: string }; question: string }) => ({
  route: run.route.text,
  question: run.question.slice(0, 200),
});

/** A webhook delivery: by tenant, event, subscription and trace (and session, when the event names one). */
export const deliverySearchAttributes = (d: {
  tenantId: string;
  eventId: string;
  subscriptionId: string;
  traceId: string;
  sessionId?: string;
}) => [
  { key: TenantId, value: d.tenantId },
  { key: EventId, value: d.eventId },
  { key: SubscriptionId, value: d.subscriptionId },
  { key: TraceId, value: d.traceId },
  ...(d.sessionId !== undefined ? [{ key: SessionId, value: d.sessionId }] : []),
];
