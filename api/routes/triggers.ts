import { invalid, AppError, ErrorCodes } from '../../common/errors';
import { deletedResult, pageQuery } from '../../common/schemas/common';
import {
  createTriggerBody,
  eventTrigger,
  eventTriggerPage,
  sessionTemplateList,
  type TriggerConfig,
  triggerParams,
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

export const triggerRoutes = ({ triggers, agents, integrations }: Services) => {
  /** A trigger whose agent does not exist could never run: refused here, naming the field. */
  async function checkAgent(tenantId: string, config: TriggerConfig): Promise<void> {
    try {
      await agents.get(tenantId, config.action.agent_id);
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND) {
        throw invalid(`body.trigger.action.agent_id: agent ${config.action.agent_id} does not exist`, {
          field: 'body.trigger.action.agent_id',
        });
      }
      throw err;
    }
    if (config.integration_id) await checkIntegration(tenantId, config);
  }

  /** A trigger can only hear an integration of its tenant and channel. */
  async function checkIntegration(tenantId: string, config: TriggerConfig): Promise<void> {
    const field = 'body.trigger.integration_id';
    const found = await integrations.get(tenantId, config.integration_id!).catch((err: unknown) => {
      if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND) return null;
      throw err;
    });
    if (!found) throw invalid(`${field}: integration ${config.integration_id} does not exist`, { field });
    if (found.channel !== config.source)
      throw invalid(`${field}: integration ${config.integration_id} is on channel ${found.channel}, not ${config.source}`, { field });
  }

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
      handler: async ({ principal, body }) => {
        await checkAgent(principal.tenantId, body.trigger);
        return triggers.create(principal.tenantId, body);
      },
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
      handler: async ({ principal, params, body }) => {
        await triggers.get(principal.tenantId, params.trigger_id);
        if (body.trigger) await checkAgent(principal.tenantId, body.trigger);
        return triggers.update(principal.tenantId, params.trigger_id, body);
      },
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
