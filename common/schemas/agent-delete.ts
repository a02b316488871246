import { z } from 'zod';

export const deleteAgentQuery = z
  .object({
    cascade: z.enum(['true', 'false']).default('false').meta({
      description: '`true`: also delete the cron jobs and event triggers that run this agent (otherwise their existence is 10005)',
    }),
  })
  .strict();

/** What still runs an agent: the 10005 of a delete without `cascade` names them in `data`. */
export type AgentDependents = { cron_ids: string[]; trigger_ids: string[] };
