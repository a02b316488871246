import { z } from 'zod';

/** A cost period: a UTC calendar month (`YYYY-MM`), or a UTC day (`YYYY-MM-DD`) where so configured. */
const costPeriod = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/, 'must be a period such as 2026-11')
  .meta({ description: 'UTC calendar month, `YYYY-MM`', example: '2026-11' });

export const costQuery = z
  .object({ period: costPeriod.optional().meta({ description: 'the period to report; the current one when absent' }) })
  .strict();

export const costSummary = z
  .object({
    period: costPeriod,
    tokens: z.number().int().meta({ description: 'tokens of the completion runs recorded in the period' }),
    duration_ms: z.number().int().meta({ description: 'summed run durations' }),
    runs: z.number().int().meta({ description: 'completion runs recorded in the period' }),
    threshold_tokens: z
      .number()
      .int()
      .nullable()
      .meta({ description: "the tenant's threshold per period in tokens; null when there is none" }),
    threshold_source: z.enum(['tenant', 'default', 'none']).meta({
      description:
        '`tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_TOKENS); `none`: no threshold',
    }),
    threshold_exceeded: z.boolean().meta({ description: 'tokens >= threshold_tokens' }),
  })
  .meta({ id: 'CostSummary' });

export const setThresholdBody = z
  .object({
    threshold_tokens: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().meta({
      description: 'tokens per period (at least 1); null turns the threshold off for the tenant, overriding the installation default',
    }),
  })
  .strict()
  .meta({ id: 'SetCostThresholdRequest' });

export type CostSummary = z.infer<typeof costSummary>;
