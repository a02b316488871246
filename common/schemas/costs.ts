import { z } from 'zod';
import { isoDate } from './common';

/** A cost period: a UTC calendar month (`YYYY-MM`), or a UTC day (`YYYY-MM-DD`) where so configured. */
const costPeriod = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/, 'must be a period such as 2026-11')
  .meta({ description: 'UTC calendar month, `YYYY-MM`', example: '2026-11' });

/** The longest range `since` to `until` of costs by agent or by day. */
export const MAX_COST_RANGE_DAYS = 366;
/** The range of costs by agent or by day when `since` is not given: this many days before `until`. */
export const DEFAULT_COST_RANGE_DAYS = 30;

const costGroupBy = z.enum(['agent', 'day']).meta({
  description:
    '`agent`: one group per agent (`agent_id`); `day`: one group per UTC day (`day`). The groups are added beside the period summary.',
});

/** An ISO 8601 timestamp with its offset, or a date (its 00:00 UTC). */
const costBound = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .meta({ description: 'ISO 8601 timestamp (with Z or an offset) or date `YYYY-MM-DD` (00:00 UTC of that day)', example: '2026-11-01' });

export const costQuery = z
  .object({
    period: costPeriod.optional().meta({ description: 'the period to report; the current one when absent' }),
    group_by: costGroupBy.optional(),
    since: costBound.optional().meta({
      description: `with group_by: runs that ended at or after this (inclusive); default ${DEFAULT_COST_RANGE_DAYS} days before \`until\``,
    }),
    until: costBound.optional().meta({
      description: `with group_by: runs that ended before this (exclusive); default now. At most ${MAX_COST_RANGE_DAYS} days after \`since\``,
    }),
  })
  .strict();

const groupSums = {
  tokens: z
    .number()
    .int()
    .meta({ description: 'tokens of the runs in the group (as `cost.tokens` of each run: prompt and completion together)' }),
  duration_ms: z.number().int().meta({ description: 'summed run durations' }),
  runs: z.number().int().meta({ description: 'completion runs in the group' }),
  input_tokens: z
    .number()
    .int()
    .meta({ description: "the runs' prompt tokens (`cost.input_tokens`); runs recorded before the split add 0" }),
  output_tokens: z
    .number()
    .int()
    .meta({ description: "the runs' generated tokens (`cost.output_tokens`); runs recorded before the split add 0" }),
  amount: z.number().meta({
    description:
      "the runs' money (`cost.amount`), rounded to 6 decimal places; runs without a price, and runs recorded before amounts, add 0",
  }),
};

const costGroupByAgent = z
  .object({
    agent_id: z
      .string()
      .nullable()
      .meta({ description: 'the agent that ran; null for runs recorded before costs kept their agent (and of no agent known now)' }),
    ...groupSums,
  })
  .meta({ id: 'CostGroupByAgent' });

const costGroupByDay = z
  .object({ day: z.iso.date().meta({ description: 'the UTC day the runs ended, `YYYY-MM-DD`' }), ...groupSums })
  .meta({ id: 'CostGroupByDay' });

const thresholdSource = z.enum(['tenant', 'default', 'none']);

export const costSummary = z
  .object({
    period: costPeriod,
    tokens: z.number().int().meta({ description: 'tokens of the completion runs recorded in the period' }),
    duration_ms: z.number().int().meta({ description: 'summed run durations' }),
    runs: z.number().int().meta({ description: 'completion runs recorded in the period' }),
    input_tokens: z.number().int().meta({
      description: "prompt tokens of the period's runs (`cost.input_tokens`); runs recorded before the split was kept add 0",
    }),
    output_tokens: z.number().int().meta({
      description: "generated tokens of the period's runs (`cost.output_tokens`); runs recorded before the split was kept add 0",
    }),
    amount: z.number().meta({
      description:
        "money of the period's runs at their models' prices (`cost.amount`), in the currency of those prices, rounded to 6 decimal " +
        'places; runs without a price, and runs recorded before amounts were kept, add 0',
    }),
    threshold_tokens: z
      .number()
      .int()
      .nullable()
      .meta({ description: "the tenant's threshold per period in tokens; null when there is none" }),
    threshold_source: thresholdSource.meta({
      description:
        '`tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_TOKENS); `none`: no threshold',
    }),
    threshold_amount: z
      .number()
      .nullable()
      .meta({ description: "the tenant's threshold per period in money (the prices' currency); null when there is none" }),
    threshold_amount_source: thresholdSource.meta({
      description:
        '`tenant`: set with PUT /v1/costs/threshold; `default`: the installation default (COST_THRESHOLD_AMOUNT); `none`: no money threshold',
    }),
    threshold_exceeded: z
      .boolean()
      .meta({ description: 'tokens >= threshold_tokens, or amount >= threshold_amount: either threshold reached' }),
  })
  .meta({ id: 'CostSummary' });

export const costReport = costSummary
  .extend({
    group_by: costGroupBy.optional().meta({ description: 'present when asked for: how `groups` are grouped' }),
    since: isoDate.optional().meta({ description: 'with group_by: the start of the range the groups cover (inclusive)' }),
    until: isoDate.optional().meta({ description: 'with group_by: the end of the range the groups cover (exclusive)' }),
    groups: z
      .array(z.union([costGroupByAgent, costGroupByDay]))
      .optional()
      .meta({
        description:
          'with group_by: the runs that ended in [since, until), summed per agent (`CostGroupByAgent`, most tokens first) or ' +
          'per UTC day (`CostGroupByDay`, oldest first, days without runs left out); independent of `period`',
      }),
  })
  .meta({
    id: 'CostReport',
    description: 'The period summary (`CostSummary`, unchanged); with `group_by`, also the costs of a range by agent or by day.',
  });

export const setThresholdBody = z
  .object({
    threshold_tokens: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .nullable()
      .optional()
      .meta({
        description:
          'tokens per period (at least 1); null turns the threshold off for the tenant, overriding the installation default; ' +
          'left out: the token threshold stays as it is',
      }),
    threshold_amount: z
      .number()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .nullable()
      .optional()
      .meta({
        description:
          "money per period (above 0), in the currency of the models' prices; null turns the money threshold off for the tenant, " +
          'overriding the installation default; left out: the money threshold stays as it is',
      }),
  })
  .strict()
  .refine((b) => b.threshold_tokens !== undefined || b.threshold_amount !== undefined, {
    path: ['threshold_tokens'],
    message: 'give threshold_tokens, threshold_amount or both',
  })
  .meta({ id: 'SetCostThresholdRequest' });

export type CostSummary = z.infer<typeof costSummary>;
export type CostGroupBy = z.infer<typeof costGroupBy>;
export type CostGroup = z.infer<typeof costGroupByAgent> | z.infer<typeof costGroupByDay>;
