import { eventPage, eventQuery } from '../../common/schemas/events';
import { defineRoute } from '../route';
import type { Services } from '../services';

export const eventRoutes = ({ eventLog }: Services) => [
  defineRoute({
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    tag: 'Events',
    access: 'admin',
    summary: "The tenant's internal event log, newest first",
    description: 'Every outbound event the service recorded (the source of webhook deliveries), filterable by name and time range.',
    query: eventQuery,
    response: eventPage,
    handler: ({ principal, query }) => eventLog.list(principal.tenantId, query),
  }),
];
