import { z } from 'zod';
import { SESSION_TEMPLATE_NAMES } from '../session-template-names';
import { cronExpressionProblem } from '../cron-expression';
import { agentId } from './agents';
import { isoDate, pageOf, resourceId } from './common';
import { traceId } from './completions';

const cronId = resourceId('crn', 'cron job id');
export const cronParams = z.object({ cron_id: cronId }).strict();

/** Temporal's overlap policies, in the API's spelling (`skip` is SKIP, ...). */
const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

const overlapPolicy = z.enum(OVERLAP_POLICIES).meta({
  description:
    'what happens when a run is due while the previous one is still going: `skip` it, `buffer_one` (run once after), ' +
    '`buffer_all` (run each after), `cancel_other` / `terminate_other` (stop the old one), `allow_all` (run side by side)',
});

const cronExpression = z
  .string()
  .trim()
  .max(100)
  .superRefine((value, ctx) => {
    const problem = cronExpressionProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'five fields: minute hour day-of-month month day-of-week, with `*`, values, ranges, steps, lists and JAN-DEC / SUN-SAT names. ' +
      'When both day-of-month and day-of-week are restricted, a run needs both to match (`0 9 1-7 * MON` is the first Monday).',
    example: '0 9 * * 1-5',
  });

/** Whether the runtime knows the zone; the same check a Temporal server in Go makes, bar letter case (fixed by canonicalTimeZone). */
function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch (err) {
    if (err instanceof RangeError) return false;
    throw err;
  }
}

/**
 * The zone's usual spelling when only letter case differs (`utc` -> `UTC`, which Temporal needs);
 * otherwise the name as given, since ICU would swap some names for older aliases.
 */
export function canonicalTimeZone(name: string): string {
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

const timeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isKnownTimeZone, 'not a known IANA time zone name')
  .meta({ description: 'IANA time zone the expression is read in', example: 'Europe/Berlin' });

const sessionTemplate = z
  .enum(SESSION_TEMPLATE_NAMES)
  .meta({ description: 'how the task opens its session and what it asks; GET /v1/event-trigger/templates lists them' });

const INPUT_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const MAX_INPUTS = 20;

/** Named the way event triggers name theirs, so the session templates read both alike. */
const inputs = z
  .record(z.string(), z.string().max(20_000))
  .superRefine((map, ctx) => {
    const names = Object.keys(map);
    if (names.length > MAX_INPUTS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_INPUTS} inputs` });
    for (const name of names) {
      if (!INPUT_NAME.test(name))
        ctx.addIssue({ code: 'custom', path: [name], message: 'input names are 1-40 of a-z 0-9 _, starting with a letter' });
    }
  })
  .meta({
    description: `input names (1-40 of a-z 0-9 _, starting with a letter; at most ${MAX_INPUTS}) and their values, handed to the session template`,
  });

/** A job's settings as given; the create body adds defaults, the update body makes each optional. */
const jobSettings = {
  name: z.string().trim().min(1).max(100),
  cron: cronExpression,
  timezone: timeZone,
  agent_id: agentId.meta({ description: 'agent that runs the task (must exist in the tenant: 10001 otherwise)' }),
  question: z.string().min(1).max(32_000).meta({ description: 'what the agent is asked on every run' }),
  inputs,
  session_template: sessionTemplate,
  overlap: overlapPolicy,
};

export const createCronBody = z
  .object({
    ...jobSettings,
    timezone: timeZone.default('UTC'),
    inputs: inputs.default({}),
    session_template: sessionTemplate.default('default'),
    overlap: overlapPolicy.default('skip'),
    paused: z.boolean().default(false).meta({ description: 'create the job without running it until unpaused' }),
  })
  .strict()
  .meta({ id: 'CreateCronJobRequest' });

export const updateCronBody = z
  .object({
    ...jobSettings,
    paused: z.boolean().meta({ description: 'true stops the runs until set to false again' }),
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one setting to change' })
  .meta({
    id: 'UpdateCronJobRequest',
    description:
      'The settings to change; those left out stay as they are. `inputs` replaces the whole map. Due times follow a new ' +
      '`cron` / `timezone` from now on; a run already going finishes as it started.',
  });
export type UpdateCronBody = z.infer<typeof updateCronBody>;

const cronRunStatus = z
  .enum(['running', 'paused', 'completed', 'failed', 'canceled', 'terminated', 'timed_out', 'continued_as_new'])
  .meta({ id: 'CronRunStatus' });

const cronRun = z
  .object({
    workflow_id: z.string(),
    run_id: z.string(),
    trace_id: traceId.meta({
      description:
        "the task's completion run (`GET /v1/combo/completions/{trace_id}`), recorded once the task has opened its session: " +
        'until then, or when the task failed before, that answers 10004',
    }),
    scheduled_at: isoDate.meta({ description: 'time the run was due (the trigger time for a manual run)' }),
    started_at: isoDate.meta({ description: 'time the schedule started it' }),
    status: cronRunStatus.nullable().meta({
      description:
        'read for a single job; in lists only `running` is known (null otherwise); null also when Temporal no longer keeps the run. ' +
        '`canceled`: the run was cancelled (`POST /v1/combo/completions/{trace_id}/cancel`, or the task in the Temporal UI)',
    }),
  })
  .meta({ id: 'CronRun' });

export const cronJob = z
  .object({
    cron_id: cronId,
    name: z.string(),
    cron: z.string(),
    timezone: z.string(),
    agent_id: agentId,
    question: z.string(),
    inputs: z.record(z.string(), z.string()),
    session_template: sessionTemplate,
    overlap: overlapPolicy,
    paused: z.boolean(),
    schedule_id: z.string().meta({ description: 'the Temporal Schedule behind the job' }),
    schedule_exists: z
      .boolean()
      .meta({ description: 'false when the Temporal Schedule was removed outside the service; delete the job then' }),
    next_run_times: z.array(isoDate).meta({ description: 'the next (up to) 5 due times; empty while paused' }),
    recent_runs: z.array(cronRun).meta({ description: 'the latest runs Temporal remembers (up to 10), oldest first' }),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'CronJob' });

export const cronJobPage = pageOf(cronJob, 'CronJobPage');

export const cronTriggered = z.object({ cron_id: cronId, triggered_at: isoDate }).meta({ id: 'CronJobTriggered' });

/** The most runs one backfill may ask for: Temporal's scheduler buffers at most this many starts. */
export const MAX_BACKFILL_RUNS = 1000;

export const backfillCronBody = z
  .object({
    since: z.iso
      .datetime({ offset: true })
      .meta({ description: 'inclusive lower bound: due times at or after it run', example: '2026-11-20T00:00:00Z' }),
    until: z.iso.datetime({ offset: true }).meta({
      description: 'exclusive upper bound: due times before it run; not in the future (due times to come run on schedule)',
      example: '2026-11-23T00:00:00Z',
    }),
    overlap: overlapPolicy.default('buffer_all').meta({
      description:
        "how the backfilled runs overlap one another and the job's own runs; default `buffer_all`: one after another, each of them runs " +
        "(the job's `overlap` applies to its scheduled runs only)",
    }),
  })
  .strict()
  .refine((b) => Date.parse(b.since) < Date.parse(b.until), { message: 'must be after since', path: ['until'] })
  .meta({ id: 'BackfillCronJobRequest' });

export const cronBackfill = z
  .object({
    cron_id: cronId,
    since: isoDate,
    until: isoDate,
    overlap: overlapPolicy,
    runs: z
      .number()
      .int()
      .min(0)
      .max(MAX_BACKFILL_RUNS)
      .meta({ description: `due times of the job's expression in [since, until), each started as a run (at most ${MAX_BACKFILL_RUNS})` }),
    first_run_at: isoDate.nullable().meta({ description: 'the earliest of those due times; null when there are none' }),
    last_run_at: isoDate.nullable().meta({ description: 'the latest of those due times; null when there are none' }),
  })
  .meta({ id: 'CronJobBackfill' });

export type CreateCronBody = z.infer<typeof createCronBody>;
export type CronJob = z.infer<typeof cronJob>;
export type CronRun = z.infer<typeof cronRun>;
export type BackfillCronBody = z.infer<typeof backfillCronBody>;
export type CronBackfill = z.infer<typeof cronBackfill>;
