import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The spec's outbound event names: the internal event log records these, webhooks deliver them. */
export const eventNames = [
  'session.created',
  'session.finished',
  'session.archived',
  'tool.called',
  'tool.error',
  'agent.step',
  'review.completed',
  'import.completed',
  'cost.threshold_exceeded',
  'run.failed',
  'run.canceled',
  'run.approval_required',
  'run.approval_decided',
  'document.parsed',
  'document.failed',
] as const;

export const eventName = z.enum(eventNames).meta({ id: 'EventName' });
export type EventName = z.infer<typeof eventName>;

/** One entry of the internal event log, in the shape webhooks deliver (the spec's delivery envelope). */
export interface EventRecord {
  event_id: string;
  event: EventName;
  tenant_id: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** What a delivery sends: the spec's envelope. `webhook.test` is the subscription test event. */
export interface DeliveryEnvelope extends Omit<EventRecord, 'event'> {
  event: EventName | 'webhook.test';
}

/** An event's id, derived from the fact it describes: recording the same fact twice keeps one event. */
export function eventIdFor(event: EventName, factKey: string): string {
  return `evt_${createHash('sha256').update(`${event}\u0000${factKey}`).digest('hex').slice(0, 32)}`;
}

export function newEvent(event: EventName, tenantId: string, factKey: string, data: Record<string, unknown>, at: Date): EventRecord {
  return { event_id: eventIdFor(event, factKey), event, tenant_id: tenantId, timestamp: at.toISOString(), data };
}
