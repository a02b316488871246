/** Data hooks of the Event log: the recorded events (`GET /v1/events`, admins), filtered on the server. */
import type { Event, EventName } from '@combo/client';
import { useApi } from './client';
import { usePagedList } from './paging';

/** Every outbound event name, as the client's EventName (the OpenAPI enum) has them. */
export const EVENT_NAMES = [
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
  'document.parsed',
  'document.failed',
] as const satisfies readonly EventName[];
// A name added to the API's enum fails the type check here until the list has it.
const complete: Exclude<EventName, (typeof EVENT_NAMES)[number]> extends never ? true : false = true;
void complete;

export interface EventFilter {
  event?: EventName;
  /** ISO 8601, inclusive. */
  since?: string;
  /** ISO 8601, exclusive. */
  until?: string;
}

/** Recorded events, newest first. */
export function useEvents(filter: EventFilter) {
  const client = useApi();
  return usePagedList<Event>(['events', filter], (page) => client.events.list({ ...page, ...filter }));
}
