import { RE2JS } from 're2js';
import type { InboundChannel, InboundEvent } from './inbound-event';

/**
 * Which event triggers an inbound event sets off. Project patterns run on re2js, a linear-time
 * engine (no backreferences or lookaround): a pattern cannot make matching backtrack for ever,
 * whatever the event's project. Pure.
 */
export interface TriggerRule {
  enabled: boolean;
  source: InboundChannel | 'generic';
  /** Only events through this integration; absent: every integration of the source's channel. */
  integration_id?: string | null;
  match: { event: string; project_regex?: string | null };
}

export const PROJECT_REGEX_MAX_CHARS = 500;

/** Why the pattern cannot be used, or null when it compiles. */
export function projectRegexProblem(pattern: string): string | null {
  if (pattern.length > PROJECT_REGEX_MAX_CHARS) return `at most ${PROJECT_REGEX_MAX_CHARS} characters`;
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    return `not a valid RE2 regular expression (${err instanceof Error ? err.message : String(err)}); backreferences and lookaround are not supported`;
  }
}

// Dispatch compiles the same few patterns over and over; a bounded cache keeps that cheap.
const compiled = new Map<string, RE2JS>();
const CACHE_LIMIT = 1_000;

function compile(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    re = RE2JS.compile(pattern);
    compiled.set(pattern, re);
  }
  return re;
}

/**
 * The trigger is enabled, listens to the event's source (and integration, when it names one), names
 * the event (or `*`), and its project pattern (if any) is found in the event's project; an event
 * without a project never matches a pattern.
 */
export function triggerMatches(rule: TriggerRule, event: Pick<InboundEvent, 'source' | 'event' | 'project'>, integrationId?: string): boolean {
  if (!rule.enabled || rule.source !== event.source) return false;
  if (rule.integration_id && rule.integration_id !== integrationId) return false;
  if (rule.match.event !== '*' && rule.match.event !== event.event) return false;
  const pattern = rule.match.project_regex;
  if (pattern === undefined || pattern === null) return true;
  if (event.project === null) return false;
  return compile(pattern).test(event.project);
}
