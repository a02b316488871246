import { z } from 'zod';
import { eventName } from '../events';
import { isoDate, pageOf, pageQuery } from './common';

const eventRecord = z
  .object({
    event_id: z.string(),
    event: eventName,
    tenant_id: z.string(),
    timestamp: isoDate,
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Event' });

export const eventQuery = pageQuery
  .extend({
    event: eventName.optional(),
    since: z.iso.datetime().optional().meta({ description: 'inclusive lower bound on timestamp' }),
    until: z.iso.datetime().optional().meta({ description: 'exclusive upper bound on timestamp' }),
  })
  .strict();

export const eventPage = pageOf(eventRecord, 'EventPage');
