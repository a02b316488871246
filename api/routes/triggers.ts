import { deletedResult, pageQuery } from '../../common/schemas/common';
import {
  createTriggerBody,
  eventTrigger,
  eventTriggerPage,
  sessionTemplateList,
  triggerParams,
  triggerPreview,
  triggerPreviewBody,
  updateTriggerBody,
} from '../../common/schemas/triggers';
import { sessionTemplateCatalog } from '../../triggers/session-templates';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Event triggers';

const templatesText = sessionTemplateCatalog()
  .map((t) => `- \`${t.name}\`: ${t.description}`)
  .join('\n');

const CONFIGURATION =
  'An inbound event (POST /v1/webhook/{channel}, or /v1/webhook/generic/{trigger_id} for `generic` triggers) starts one agent ' +
  "task per enabled trigger whose `source` is the event's channel, whose `match.event` is the event's normalised name (or `*`) " +
  "and whose `match.project_regex`, when given, is found in the event's project. A task runs once per (trigger, event id), " +
  'however often the event is delivered: it opens a session (user `trigger:<trigger_id>`, `session.created`) on the agent and ' +
  'runs a completion there (`session.finished`, and `review.completed` / `import.completed` for those templates). The ' +
  'workflow is findable in Temporal by `TriggerId` and `EventId`.\n\n' +
  'Validation (10001, naming the field): the agent must exist in the tenant; `project_regex` must be an RE2 expression of at ' +
  'most 500 characters (a linear-time engine, so no catastrophic backtracking; no backreferences or lookaround); each input ' +
  'is text with `{{ event.<path> }}` expressions only, each naming a field of the event (`event_id`, `source`, `event`, ' +
  '`project`, `actor`, `url`, `received_at`) or a path under `event.payload` (at most 20 inputs); `integration_id`, when ' +
  'given, must be an integration of the tenant on the `source` channel; `session_template` must be one of:\n\n' +
  templatesText;

export const triggerRoutes = ({ triggers, commands }: Services) => {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/event-trigger/templates',
      operationId: 'listSessionTemplates',
      tag,
      summary: 'Session templates a trigger may name',
      description: templatesText,
      response: sessionTemplateList,
      handler: () => ({ items: sessionTemplateCatalog() }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/event-trigger',
      operationId: 'createEventTrigger',
      tag,
      summary: 'Create an event trigger',
      description: CONFIGURATION,
      body: createTriggerBody,
      response: eventTrigger,
      handler: ({ principal, body }) => commands.triggers.create(principal.tenantId, body),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/event-trigger/preview',
      operationId: 'previewEventTrigger',
      tag,
      summary: 'Preview a trigger on a sample event: the normalised event, the match and the task, nothing started',
      description:
        'Takes a trigger definition as POST /v1/event-trigger takes it (`trigger`, `enabled`) and a sample inbound body ' +
        '(`payload`, with `headers` for channels that take the event name from one, `event_id`, and the `integration_id` it is ' +
        "taken to arrive through) on a channel (`source`, the trigger's by default), and answers what a real inbound call " +
        'would do with it, through the same code: the event as the channel normalises it (`received_at` is now), whether the ' +
        'trigger matches with each condition and why, and the agent task it would start (inputs filled from the event, the ' +
        "session template's question), or `error` naming the input and the path the event lacks, in the inbound reply's " +
        'words. The inputs are filled whether the trigger matches or not; `would_start` says whether a task would start. ' +
        'Nothing is started or stored, and the signature, timestamp and event-id deduplication of inbound calls do not apply. ' +
        'The definition is checked as on creation (10001 naming the field: unknown agent, bad pattern or template, foreign ' +
        'integration). The sample is bounded like an inbound body (the whole request at most MAX_JSON_BODY_BYTES, nested at ' +
        'most 64 levels); unlike an inbound call, text the stores cannot hold (NUL, lone surrogates) is refused (10001) rather ' +
        `than removed.\n\n${CONFIGURATION}`,
      body: triggerPreviewBody,
      response: triggerPreview,
      handler: ({ principal, body }) => commands.triggers.preview(principal.tenantId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/event-trigger',
      operationId: 'listEventTriggers',
      tag,
      summary: 'List event triggers, newest first',
      query: pageQuery,
      response: eventTriggerPage,
      handler: ({ principal, query }) => triggers.list(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/event-trigger/{trigger_id}',
      operationId: 'getEventTrigger',
      tag,
      summary: 'Get one event trigger',
      params: triggerParams,
      response: eventTrigger,
      handler: ({ principal, params }) => triggers.get(principal.tenantId, params.trigger_id),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/event-trigger/{trigger_id}',
      operationId: 'updateEventTrigger',
      tag,
      summary: 'Update an event trigger',
      description: `Fields present in the body replace the stored ones (\`trigger\` as a whole); absent fields are kept. Tasks already started run on. ${CONFIGURATION}`,
      params: triggerParams,
      body: updateTriggerBody,
      response: eventTrigger,
      handler: ({ principal, params, body }) => commands.triggers.update(principal.tenantId, params.trigger_id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/event-trigger/{trigger_id}',
      operationId: 'deleteEventTrigger',
      tag,
      summary: 'Delete an event trigger',
      description: 'Later events start nothing for it; tasks already started run on.',
      params: triggerParams,
      response: deletedResult,
      handler: async ({ principal, params }) => {
        await triggers.delete(principal.tenantId, params.trigger_id);
        return { deleted: true as const };
      },
    }),
  ];
};
