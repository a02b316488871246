/**
 * The outbound event names a subscription may ask for (the API's `EventName`), with what each
 * means. Typed against the client's union, so a name the API adds or drops fails the type check.
 */
import type { EventName } from '@combo/client';

const DESCRIPTIONS = {
  'session.created': 'a session was created',
  'session.finished': 'a completion run finished (with its cost and artifacts)',
  'session.archived': 'a session was archived',
  'tool.called': 'an agent called a tool',
  'tool.error': 'a tool call failed',
  'agent.step': 'an agent took a step',
  'review.completed': 'a review run produced its report',
  'import.completed': 'an import run finished',
  'cost.threshold_exceeded': "the tenant's tokens reached the cost threshold",
  'run.failed': 'a run failed',
  'run.canceled': 'a run was cancelled',
  'run.approval_required': 'a tool call waits for approval',
  'run.approval_decided': 'a tool call was approved, rejected or timed out',
  'document.parsed': 'a document was parsed and indexed',
  'document.failed': 'a document could not be parsed',
} as const satisfies Record<EventName, string>;

export const EVENT_NAMES = Object.keys(DESCRIPTIONS) as EventName[];

export const describeEvent = (name: EventName): string => DESCRIPTIONS[name];
