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
