import type { InboundEvent } from './inbound-event';

/**
 * Input templates of event triggers: literal text with `{{ event.<path> }}` expressions filled
 * from the inbound event (`{{ event.payload.pull_request.html_url }}`). Pure.
 */

/** A filled value is cut here, so a huge payload field cannot blow up a task's question. */
export const INPUT_VALUE_MAX_CHARS = 20_000;

/** `{{` up to the next `}}`: every such span must be one event expression. */
const SPAN = /\{\{([\s\S]*?)\}\}/g;
const EXPRESSION = /^\s*event((?:\.[A-Za-z0-9_-]+)+)\s*$/;

/** Why the template is not acceptable, or null when it is. */
export function templateProblem(template: string): string | null {
  for (const span of template.matchAll(SPAN)) {
    if (!EXPRESSION.test(span[1]!)) {
      return `${JSON.stringify(span[0].slice(0, 80))} is not an expression of the form {{ event.<path> }} (path segments of A-Z a-z 0-9 _ -, separated by dots)`;
    }
  }
  if (template.replace(SPAN, '').includes('{{')) return 'has a {{ without its closing }}';
  return null;
}

/** The value at a dotted path of the event; only the event's own fields are reachable. */
function valueAt(event: InboundEvent | null, path: string[]): unknown {
  let current: unknown = event;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
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
  const filled = template.replace(SPAN, (_whole, inner: string) => {
    const path = EXPRESSION.exec(inner)?.[1];
    if (!path) return '';
    return asText(valueAt(event, path.slice(1).split('.'))).slice(0, INPUT_VALUE_MAX_CHARS);
  });
  return filled.slice(0, INPUT_VALUE_MAX_CHARS);
}

/** Every input of a trigger, filled from the event. */
export function fillInputs(templates: Record<string, string>, event: InboundEvent | null): Record<string, string> {
  return Object.fromEntries(Object.entries(templates).map(([name, template]) => [name, fillTemplate(template, event)]));
}
