import { RE2JS } from 're2js';
import type { InboundChannel, InboundEvent } from '../common/inbound-event';
import { MATCH_CONDITION_NAMES } from '../common/schemas/triggers';

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

/** What a trigger's match checks, in the order it checks them. */
const MATCH_CONDITIONS = MATCH_CONDITION_NAMES;
type MatchCondition = (typeof MATCH_CONDITIONS)[number];

/** One condition of a trigger checked against an event: whether it holds, and in words why. */
export interface ConditionOutcome {
  condition: MatchCondition;
  passed: boolean;
  detail: string;
}

type MatchedEvent = Pick<InboundEvent, 'source' | 'event' | 'project'>;
type Check = (rule: TriggerRule, event: MatchedEvent, integrationId: string | undefined) => { passed: boolean; detail: string };

const CHECKS: Record<MatchCondition, Check> = {
  enabled: (rule) => ({ passed: rule.enabled, detail: rule.enabled ? 'the trigger is enabled' : 'the trigger is disabled' }),
  source: (rule, event) => ({
    passed: rule.source === event.source,
    detail: `the event came through ${event.source}; the trigger listens to ${rule.source}`,
  }),
  integration: (rule, _event, integrationId) =>
    rule.integration_id
      ? {
          passed: rule.integration_id === integrationId,
          detail: `the trigger hears only events through integration ${rule.integration_id}; this one came through ${integrationId ?? 'none named'}`,
        }
      : { passed: true, detail: 'the trigger hears events through every integration of its channel' },
  event: (rule, event) =>
    rule.match.event === '*'
      ? { passed: true, detail: 'match.event is *: every event of the source' }
      : { passed: rule.match.event === event.event, detail: `the event is ${event.event}; match.event is ${rule.match.event}` },
  project_regex: (rule, event) => {
    const pattern = rule.match.project_regex;
    if (pattern === undefined || pattern === null) return { passed: true, detail: 'no project_regex: every project' };
    if (event.project === null) return { passed: false, detail: 'the event has no project, and a project_regex never matches one without' };
    const found = compile(pattern).test(event.project);
    return {
      passed: found,
      detail: `${JSON.stringify(pattern)} is ${found ? '' : 'not '}found in the project ${JSON.stringify(event.project)}`,
    };
  },
};

/**
 * The trigger is enabled, listens to the event's source (and integration, when it names one), names
 * the event (or `*`), and its project pattern (if any) is found in the event's project; an event
 * without a project never matches a pattern. Stops at the first condition that fails.
 */
export function triggerMatches(rule: TriggerRule, event: MatchedEvent, integrationId?: string): boolean {
  return MATCH_CONDITIONS.every((condition) => CHECKS[condition](rule, event, integrationId).passed);
}

/** Every condition triggerMatches checks, each with its outcome (the trigger matches when all passed). */
export function explainMatch(rule: TriggerRule, event: MatchedEvent, integrationId?: string): ConditionOutcome[] {
  return MATCH_CONDITIONS.map((condition) => ({ condition, ...CHECKS[condition](rule, event, integrationId) }));
}
