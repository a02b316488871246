import { RE2JS } from 're2js';
import type { InboundChannel, InboundEvent } from '../common/inbound-event';

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
export function triggerMatches(
  rule: TriggerRule,
  event: Pick<InboundEvent, 'source' | 'event' | 'project'>,
  integrationId?: string,
): boolean {
  if (!rule.enabled || rule.source !== event.source) return false;
  if (rule.integration_id && rule.integration_id !== integrationId) return false;
  if (rule.match.event !== '*' && rule.match.event !== event.event) return false;
  const pattern = rule.match.project_regex;
  if (pattern === undefined || pattern === null) return true;
  if (event.project === null) return false;
  return compile(pattern).test(event.project);
}
