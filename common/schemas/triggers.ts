import { z } from 'zod';
import { INBOUND_CHANNELS } from '../inbound-event';
import { projectRegexProblem, PROJECT_REGEX_MAX_CHARS } from '../project-regex';
import { SESSION_TEMPLATE_NAMES } from '../session-template-names';
import { templateProblem } from '../event-templates';
import { agentId } from './agents';
import { isoDate, pageOf, resourceId } from './common';
import { integrationId } from './integrations';

/** The conditions of a trigger's match (triggers/match.ts checks them in this order). */
export const MATCH_CONDITION_NAMES = ['enabled', 'source', 'integration', 'event', 'project_regex'] as const;

export const triggerId = resourceId('trg', 'event trigger id');

const MAX_TRIGGER_INPUTS = 20;
const INPUT_NAME = /^[a-z][a-z0-9_]{0,39}$/;

const triggerSource = z
  .enum([...INBOUND_CHANNELS, 'generic'])
  .meta({ description: 'channel of the source system (`/v1/webhook/{channel}`), or `generic` for `/v1/webhook/generic/{trigger_id}`' });

const inputTemplate = z
  .string()
  .max(2_000)
  .superRefine((template, ctx) => {
    const problem = templateProblem(template);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'literal text with `{{ event.<path> }}` expressions, e.g. `{{ event.payload.pull_request.html_url }}`; a path the event cannot have (`{{ event.foo }}`) is 10001 naming the input',
  });

const inputs = z
  .record(z.string(), inputTemplate)
  .superRefine((map, ctx) => {
    const names = Object.keys(map);
    if (names.length > MAX_TRIGGER_INPUTS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_TRIGGER_INPUTS} inputs` });
    for (const name of names) {
      if (!INPUT_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'input names are 1-40 of a-z 0-9 _, starting with a letter' });
      }
    }
  })
  .meta({
    description:
      `Input names (1-40 of a-z 0-9 _, starting with a letter; at most ${MAX_TRIGGER_INPUTS}) and their templates, filled from the ` +
      'normalised inbound event: `event_id`, `source`, `event`, `project`, `actor`, `url`, `received_at`, and `payload` (the ' +
      'body as sent) with any path below it (`payload.pull_request.labels.0.name`). Strings are filled as they are, numbers ' +
      'and booleans as text, objects as JSON, JSON null (and a null field such as `project`) as the empty string; a filled ' +
      'value is cut at 20 000 characters. When an event lacks a path an input names, the trigger starts no task for it: ' +
      "its entry in the inbound call's `tasks` has `started: false` and `error` naming the path.",
  });

const triggerConfig = z
  .object({
    source: triggerSource,
    integration_id: integrationId.optional().meta({
      description:
        'only events received through this integration (of the tenant, on the `source` channel: 10001 otherwise); absent: ' +
        'events through every integration of the channel',
    }),
    match: z
      .object({
        event: z.string().trim().min(1).max(100).meta({
          description:
            'the normalised event name (`push`, `pull_request.opened`, `patchset-created`, `message`, ...), or `*` for every event of the source',
        }),
        project_regex: z
          .string()
          .min(1)
          .max(PROJECT_REGEX_MAX_CHARS)
          .superRefine((pattern, ctx) => {
            const problem = projectRegexProblem(pattern);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          })
          .optional()
          .meta({
            description:
              `RE2 regular expression searched for in the event's project (at most ${PROJECT_REGEX_MAX_CHARS} characters). It runs on a ` +
              'linear-time engine, so no pattern can backtrack catastrophically; backreferences and lookaround are therefore not ' +
              'supported. An event without a project never matches a pattern. Absent: every project.',
          }),
      })
      .strict(),
    action: z
      .object({
        agent_id: agentId.meta({ description: 'the agent to run (must exist in the tenant: 10001 otherwise)' }),
        session_template: z
          .enum(SESSION_TEMPLATE_NAMES)
          .meta({ description: 'how the task opens its session and what it asks; GET /v1/event-trigger/templates lists them' }),
        inputs: inputs.default({}),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'EventTriggerConfig' });

export const createTriggerBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    enabled: z.boolean().default(true),
    trigger: triggerConfig,
  })
  .strict()
  .meta({ id: 'CreateEventTriggerRequest' });

/** PUT replaces the fields it names (`trigger` as a whole) and keeps the others. */
export const updateTriggerBody = z
  .object({ name: createTriggerBody.shape.name, enabled: z.boolean(), trigger: triggerConfig })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field to update')
  .meta({ id: 'UpdateEventTriggerRequest' });

export const eventTrigger = z
  .object({
    trigger_id: triggerId,
    name: z.string(),
    enabled: z.boolean(),
    trigger: triggerConfig,
    inbound_path: z
      .string()
      .nullable()
      .meta({ description: 'for `generic` triggers, the path external systems POST their events to; null for channel triggers' }),
    problems: z.array(z.object({ field: z.string(), message: z.string() })).meta({
      description:
        'what is wrong with a trigger saved before it was checked (e.g. an input naming `{{ event.foo }}`, which fills as ' +
        'empty); empty when nothing is. Saving the trigger again requires fixing them.',
    }),
    created_at: isoDate,
    updated_at: isoDate,
  })
  .meta({ id: 'EventTrigger' });

export const eventTriggerPage = pageOf(eventTrigger, 'EventTriggerPage');

/** At most this many sample headers in a preview. */
const MAX_PREVIEW_HEADERS = 50;

export const triggerPreviewBody = z
  .object({
    source: triggerSource.optional().meta({
      description:
        "the channel the sample arrives on, as triggers name it (`/v1/webhook/{channel}`, or `generic`); default: the trigger's `source`",
    }),
    trigger: triggerConfig,
    enabled: z.boolean().default(true).meta({ description: 'as the trigger would be saved; a disabled trigger matches nothing' }),
    payload: z.record(z.string(), z.unknown()).meta({
      description:
        'the sample body as the sending system would POST it (a JSON object); the whole request is bounded like an inbound ' +
        'body (MAX_JSON_BODY_BYTES, nested at most 64 levels)',
    }),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'header names are 1-100 of A-Z a-z 0-9 -'), z.string().max(1_000))
      .refine((h) => Object.keys(h).length <= MAX_PREVIEW_HEADERS, `at most ${MAX_PREVIEW_HEADERS} headers`)
      .default({})
      .meta({
        description:
          'headers of the sample, for channels that take the event from one: `X-GitHub-Event` (git-b), `X-Gitea-Event` (git-c); names in any case',
      }),
    event_id: z
      .string()
      .min(1)
      .max(200)
      .default('evt_preview')
      .meta({ description: 'the X-Combo-Event-Id of the sample (`{{ event.event_id }}`); default `evt_preview`' }),
    integration_id: integrationId.optional().meta({
      description:
        "the integration the sample is taken to arrive through (of the tenant, on the sample's channel: 10001 otherwise); " +
        "default: the trigger's `integration_id`, so a trigger that names one is checked as if the sample came through it",
    }),
  })
  .strict()
  .meta({ id: 'EventTriggerPreviewRequest' });

const normalisedEvent = z
  .object({
    event_id: z.string(),
    source: triggerSource,
    event: z.string().meta({ description: 'the normalised event name; `unknown` when the channel does not recognise the payload' }),
    project: z.string().nullable(),
    actor: z.string().nullable(),
    url: z.string().nullable(),
    received_at: isoDate,
    payload: z.record(z.string(), z.unknown()).meta({ description: 'the body as sent' }),
  })
  .meta({
    id: 'InboundEvent',
    description:
      'An inbound event as the channel normalises it: what triggers match on and fill their inputs from (`{{ event.<path> }}`). ' +
      'In a preview, the sample normalised exactly as an inbound call on the channel would be.',
  });

export const triggerPreview = z
  .object({
    event: normalisedEvent,
    matches: z.boolean().meta({ description: 'whether the trigger matches the event: every condition passed' }),
    conditions: z
      .array(
        z.object({
          condition: z.enum(MATCH_CONDITION_NAMES).meta({
            description:
              '`enabled`; `source` (the channel); `integration` (a trigger naming one hears only events through it); `event` ' +
              '(`match.event` or `*`); `project_regex` (found in the project; an event without one never matches a pattern)',
          }),
          passed: z.boolean(),
          detail: z.string().meta({ description: 'why, in words' }),
        }),
      )
      .meta({ description: 'every condition of the match, in the order it is checked' }),
    task: z
      .object({
        agent_id: z.string(),
        session_template: z.enum(SESSION_TEMPLATE_NAMES),
        inputs: z.record(z.string(), z.string()).meta({ description: 'the inputs filled from the event' }),
        question: z.string().meta({ description: "what the task would ask the agent (the session template's question)" }),
      })
      .nullable()
      .meta({
        description:
          'the agent task the trigger would start for this event (filled whether it matches or not); null when `error` says why none',
      }),
    error: z.string().nullable().meta({
      description:
        "why no task would start though the trigger matched: an input names a path the event lacks, in the inbound reply's words (`tasks[].error`)",
    }),
    would_start: z.boolean().meta({ description: 'matches and no error: a real inbound call would start the task' }),
  })
  .meta({ id: 'EventTriggerPreview' });
export const triggerParams = z.object({ trigger_id: triggerId }).strict();

export const sessionTemplateList = z
  .object({ items: z.array(z.object({ name: z.string(), description: z.string(), route: z.string() })) })
  .meta({ id: 'SessionTemplateList' });

export type TriggerConfig = z.infer<typeof triggerConfig>;
export type CreateTriggerBody = z.infer<typeof createTriggerBody>;
export type UpdateTriggerBody = z.infer<typeof updateTriggerBody>;
export type TriggerPreviewBody = z.infer<typeof triggerPreviewBody>;
export type EventTrigger = z.infer<typeof eventTrigger>;
