import type { InboundEvent } from './inbound-event';

/**
 * Input templates of event triggers: literal text with `{{ event.<path> }}` expressions filled
 * from the inbound event (`{{ event.payload.pull_request.html_url }}`). Pure.
 */

/** The event's fields a template may name; only `payload` (the body as sent) has fields of its own. */
const EVENT_FIELDS = ['event_id', 'source', 'event', 'project', 'actor', 'url', 'received_at', 'payload'] as const;

/** A filled value is cut here, so a huge payload field cannot blow up a task's question. */
export const INPUT_VALUE_MAX_CHARS = 20_000;

/** `{{` up to the next `}}`: every such span must be one event expression. */
const SPAN = /\{\{([\s\S]*?)\}\}/g;
const EXPRESSION = /^\s*event((?:\.[A-Za-z0-9_-]+)+)\s*$/;

/** The dotted path of an expression's inside (`event.a.b` -> [a, b]), undefined when it is not one. */
const pathOf = (inner: string) => EXPRESSION.exec(inner)?.[1]?.slice(1).split('.');

const pathsOf = (template: string) =>
  [...template.matchAll(SPAN)].map((span) => pathOf(span[1]!)).filter((path): path is string[] => path !== undefined);

/** A path no event can have: a field the event lacks, or a field below one that holds no object. */
const isUnknownPath = (path: string[]) =>
  !(EVENT_FIELDS as readonly string[]).includes(path[0]!) || (path.length > 1 && path[0] !== 'payload');

const unknownPathMessage = (path: string[]) =>
  `event.${path.join('.')} is not a field of the event (fields: ${EVENT_FIELDS.join(', ')}; the body as sent is under event.payload)`;

/**
 * The template's paths that name nothing an event has. Triggers saved before such paths were
 * refused keep them (they fill as empty) and list them as problems.
 */
export function unknownPathProblems(template: string): string[] {
  return pathsOf(template).filter(isUnknownPath).map(unknownPathMessage);
}

/** Why the template is not acceptable, or null when it is. */
export function templateProblem(template: string): string | null {
  for (const span of template.matchAll(SPAN)) {
    if (!EXPRESSION.test(span[1]!)) {
      return `${JSON.stringify(span[0].slice(0, 80))} is not an expression of the form {{ event.<path> }} (path segments of A-Z a-z 0-9 _ -, separated by dots)`;
    }
  }
  if (template.replace(SPAN, '').includes('{{')) return 'has a {{ without its closing }}';
  return unknownPathProblems(template)[0] ?? null;
}

/** The value at a dotted path of the event (undefined: absent; JSON null is a value); only own fields are reachable. */
function valueAt(event: InboundEvent | null, path: string[]): unknown {
  let current: unknown = event;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Fills a template; `onAbsent` hears of each path the event lacks that an event could have. */
function render(template: string, event: InboundEvent | null, onAbsent: (path: string[]) => void): string {
  const filled = template.replace(SPAN, (_whole, inner: string) => {
    const path = pathOf(inner);
    if (!path) return '';
    const value = valueAt(event, path);
    if (value === undefined && !isUnknownPath(path)) onAbsent(path);
    return asText(value).slice(0, INPUT_VALUE_MAX_CHARS);
  });
  return filled.slice(0, INPUT_VALUE_MAX_CHARS);
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * Fills a template: strings as they are, numbers and booleans as text, objects and arrays as
 * JSON, a missing field (or no event at all) as the empty string; the result is capped.
 */
export function fillTemplate(template: string, event: InboundEvent | null): string {
  return render(template, event, () => undefined);
}

/** Every input of a trigger, filled from the event. */
export function fillInputs(templates: Record<string, string>, event: InboundEvent | null): Record<string, string> {
  return Object.fromEntries(Object.entries(templates).map(([name, template]) => [name, fillTemplate(template, event)]));
}

/**
 * Every input filled from the event, or why the task must not start: a path the event does not
 * have (JSON null is there, and fills as empty). A path no event can have fills as empty, as it
 * did before such paths were refused.
 */
export function renderInputs(
  templates: Record<string, string>,
  event: InboundEvent,
): { inputs: Record<string, string> } | { error: string } {
  const absent: string[] = [];
  const inputs = Object.fromEntries(
    Object.entries(templates).map(([name, template]) => [
      name,
      render(template, event, (path) => absent.push(`input ${name}: event.${path.join('.')}`)),
    ]),
  );
  if (absent.length === 0) return { inputs };
  return { error: `not started: the event lacks what the trigger's inputs name (${absent.slice(0, 5).join('; ')})` };
}
