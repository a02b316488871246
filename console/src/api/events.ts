/** Data hooks of the Event log: the recorded events (`GET /v1/events`, admins), filtered on the server. */
import type { Event, EventName } from '@combo/client';
import { useApi } from './client';
import { usePagedList } from './paging';

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
