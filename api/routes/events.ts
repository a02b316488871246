import type { Filter } from 'mongodb';
import { eventPage, eventQuery } from '../../common/schemas/events';
import { findPage } from '../../stores/pagination';
import { type EventDoc, presentEvent } from '../../stores/event-log';
import { defineRoute } from '../route';
import type { Services } from '../services';

export const eventRoutes = ({ eventLog }: Services) => [
  defineRoute({
    method: 'get', path: '/v1/events', operationId: 'listEvents', tag: 'Events', access: 'admin',
    summary: "The tenant's internal event log, newest first",
    description: 'Every outbound event the service recorded (the source of webhook deliveries), filterable by name and time range.',
    query: eventQuery, response: eventPage,
    handler: ({ principal, query }) => {
      const filter: Filter<EventDoc> = { tenant_id: principal.tenantId };
      if (query.event) filter.event = query.event;
      if (query.since || query.until) {
        filter.timestamp = {
          ...(query.since ? { $gte: new Date(query.since) } : {}),
          ...(query.until ? { $lt: new Date(query.until) } : {}),
        };
      }
      return findPage(eventLog.events, filter, query, presentEvent, { timestamp: -1, _id: -1 });
    },
  }),
];
