import type { InboundEvent } from '../common/inbound-event';
import type { SessionTemplateName } from '../common/session-template-names';

/**
 * Session templates: how an agent task started by an event trigger (or a cron job) opens its
 * session and what it asks. Each builds the session's name and metadata, the route (null: the
 * agent's default route) and the question from the event and the trigger's filled inputs. Pure:
 * used by the dispatcher, the agent-task activity and the API's documentation.
 */

export interface SessionPlan {
  sessionName: string;
  metadata: Record<string, string>;
  /** null: the agent's default route (else plain chat). */
  route: string | null;
  question: string;
}

export interface TemplateContext {
  /** null for cron jobs: nothing happened, the schedule fired. */
  event: InboundEvent | null;
  inputs: Record<string, string>;
  /** `trigger:<id>` or `cron:<id>`. */
  origin: string;
  /** A language model is configured (LLM_BASE_URL): decides between model and rule-based processors. */
  modelConfigured: boolean;
}

interface SessionTemplate {
  name: SessionTemplateName;
  description: string;
  /** The route as documentation shows it. */
  routeText: string;
  plan(ctx: TemplateContext): SessionPlan;
}

/** The API's ceiling on a completion's question. */
export const QUESTION_MAX_CHARS = 32_000;
const NAME_MAX_CHARS = 200;
const METADATA_VALUE_MAX_CHARS = 1_000;

const REVIEW_ROUTE_WITH_MODEL = '@review@llm@default@';
const REVIEW_ROUTE_WITHOUT_MODEL = '@review@rules@default@';
const IMPORT_REQUIREMENTS_ROUTE = '@import@structured@requirements@';
const IMPORT_BUGS_ROUTE = '@import@structured@bugs@';

/** What the session records of the event it was opened for. */
function eventMetadata(event: InboundEvent | null): Record<string, string> {
  if (!event) return {};
  const fields: Record<string, string | null> = {
    event_id: event.event_id,
    event_source: event.source,
    event: event.event,
    project: event.project,
    actor: event.actor,
    url: event.url,
  };
  return Object.fromEntries(
    Object.entries(fields)
      .filter((entry): entry is [string, string] => entry[1] !== null && entry[1] !== '')
      .map(([key, value]) => [key, value.slice(0, METADATA_VALUE_MAX_CHARS)]),
  );
}

const describeEvent = (event: InboundEvent) => `${event.event} from ${event.source}${event.project ? ` on ${event.project}` : ''}`;

/** The inputs as `name: value` lines, for the ones a template does not place itself. */
const inputLines = (inputs: Record<string, string>, except: string[] = []) =>
  Object.entries(inputs)
    .filter(([name, value]) => !except.includes(name) && value.trim() !== '')
    .map(([name, value]) => `${name}: ${value}`);

/** The event's own text: its `text` field when it has one, else the whole payload as JSON. */
const field = (value: unknown, key: string): unknown =>
  value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
const textOf = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The item an issue event is about, in the import's JSON form: GitHub/Gitea `issue`, GitLab
 * `object_attributes` of an `issue` hook. Null for other events.
 */
function issueItem(event: InboundEvent): Record<string, unknown> | null {
  const { payload } = event;
  const issue = field(payload, 'issue') ?? (payload.object_kind === 'issue' ? field(payload, 'object_attributes') : undefined);
  const title = textOf(field(issue, 'title'));
  if (!issue || !title) return null;
  const labels = [field(issue, 'labels'), payload.labels].find(Array.isArray) as unknown[] | undefined;
  const labelNames = (labels ?? []).map((l) => textOf(field(l, 'name')) ?? textOf(field(l, 'title'))).filter((l): l is string => !!l);
  return {
    title,
    description: textOf(field(issue, 'body')) ?? textOf(field(issue, 'description')) ?? '',
    url: textOf(field(issue, 'html_url')) ?? textOf(field(issue, 'url')) ?? event.url ?? undefined,
    ...(labelNames.length > 0 ? { labels: labelNames.join(', ') } : {}),
    ...(event.actor ? { reporter: event.actor } : {}),
  };
}

/** What an import reads from an event: an issue as one item, else the event's `text`, else the payload as JSON. */
function eventText(event: InboundEvent | null): string {
  if (!event) return '';
  const item = issueItem(event);
  if (item) return JSON.stringify([item]);
  const text = event.payload.text;
  return typeof text === 'string' ? text : JSON.stringify(event.payload);
}

const cap = (text: string, max: number) => text.slice(0, max);

const TEMPLATES: readonly SessionTemplate[] = [
  {
    name: 'default',
    description:
      "A session named after the event, on the agent's default route. The question states the event (name, source, project, " +
      'actor, link) followed by every input as `name: value`; a cron job asks its own question.',
    routeText: "the agent's default route",
    plan: ({ event, inputs, origin }) => ({
      sessionName: event ? describeEvent(event) : `Scheduled task (${origin})`,
      metadata: eventMetadata(event),
      route: null,
      question: [
        ...(event
          ? [
              `Event ${describeEvent(event)}.`,
              ...(event.actor ? [`actor: ${event.actor}`] : []),
              ...(event.url ? [`link: ${event.url}`] : []),
            ]
          : []),
        ...inputLines(inputs),
      ].join('\n'),
    }),
  },
  {
    name: 'code-review',
    description:
      `Reviews the change the event is about, announced with \`review.completed\` (its \`pr_url\` is the change's link). Route ` +
      `\`${REVIEW_ROUTE_WITH_MODEL}\` when a language model is configured, else \`${REVIEW_ROUTE_WITHOUT_MODEL}\` (rule-based, ` +
      "which needs the diff). The question carries the link (input `pr_url`, else `url`, else the event's link), the other inputs " +
      'as `name: value`, and the unified diff from the `diff` input when there is one.',
    routeText: `${REVIEW_ROUTE_WITH_MODEL} (with a model) or ${REVIEW_ROUTE_WITHOUT_MODEL}`,
    plan: ({ event, inputs, modelConfigured }) => {
      const link = inputs.pr_url || inputs.url || event?.url || '';
      const diff = inputs.diff?.trim() ?? '';
      return {
        sessionName: `Review ${link || (event ? describeEvent(event) : 'of a change')}`,
        metadata: eventMetadata(event),
        route: modelConfigured ? REVIEW_ROUTE_WITH_MODEL : REVIEW_ROUTE_WITHOUT_MODEL,
        question: [
          link ? `Review the change ${link}` : 'Review the change below.',
          ...inputLines(inputs, ['pr_url', 'url', 'diff']),
          ...(diff ? ['', diff] : []),
        ].join('\n'),
      };
    },
  },
  {
    name: 'import-requirements',
    description:
      `Imports requirements on \`${IMPORT_REQUIREMENTS_ROUTE}\`, announced with \`import.completed\`. The question is the \`items\` ` +
      'input (CSV, JSON or a Markdown list), else, for an issue event (GitHub, Gitea, GitLab), the issue as one item, else the ' +
      "event's `text` field, else its whole payload as JSON.",
    routeText: IMPORT_REQUIREMENTS_ROUTE,
    plan: ({ event, inputs }) => ({
      sessionName: `Import requirements${event ? ` (${describeEvent(event)})` : ''}`,
      metadata: eventMetadata(event),
      route: IMPORT_REQUIREMENTS_ROUTE,
      question: inputs.items || eventText(event),
    }),
  },
  {
    name: 'import-bugs',
    description:
      `Imports bugs on \`${IMPORT_BUGS_ROUTE}\`, announced with \`import.completed\`. The question is the \`items\` input, ` +
      "else, for an issue event, the issue as one item, else the event's `text` field, else its whole payload as JSON.",
    routeText: IMPORT_BUGS_ROUTE,
    plan: ({ event, inputs }) => ({
      sessionName: `Import bugs${event ? ` (${describeEvent(event)})` : ''}`,
      metadata: eventMetadata(event),
      route: IMPORT_BUGS_ROUTE,
      question: inputs.items || eventText(event),
    }),
  },
];

export const isSessionTemplate = (name: string): name is SessionTemplateName => TEMPLATES.some((t) => t.name === name);

/** Name, description and route of every template, for the API's documentation and listing. */
export const sessionTemplateCatalog = () => TEMPLATES.map(({ name, description, routeText }) => ({ name, description, route: routeText }));

/** The session and question a task opens with; an unknown template name is a programming error. */
export function planSession(template: string, ctx: TemplateContext): SessionPlan {
  const found = TEMPLATES.find((t) => t.name === template);
  if (!found) throw new Error(`unknown session template ${template}`);
  const plan = found.plan(ctx);
  return { ...plan, sessionName: cap(plan.sessionName, NAME_MAX_CHARS), question: cap(plan.question.trim(), QUESTION_MAX_CHARS) };
}
