/**
 * The one shape every inbound webhook is normalised into, whatever system sent it. Channel
 * adapters produce it; event triggers match on it and fill their inputs from it
 * (`{{ event.project }}`, `{{ event.payload.pull_request.html_url }}`, ...). Pure types.
 */
export const INBOUND_CHANNELS = ['workchat-a', 'workchat-b', 'review-a', 'git-a', 'git-b', 'git-c'] as const;
export type InboundChannel = (typeof INBOUND_CHANNELS)[number];

export interface InboundEvent {
  /** `X-Combo-Event-Id`: unique per event and sender; a repeat is acknowledged and starts nothing. */
  event_id: string;
  /** The channel (`git-b`, ...) or `generic` for /v1/webhook/generic/{trigger_id}. */
  source: InboundChannel | 'generic';
  /** Normalised event name, e.g. `push`, `pull_request.opened`, `patchset-created`, `message`. */
  event: string;
  /** Repository / project / space the event concerns, or null when the system has none. */
  project: string | null;
  /** Who caused it (login, e-mail, user id), or null. */
  actor: string | null;
  /** A link to what the event is about (PR, change, commit, message), or null. */
  url: string | null;
  /** ISO 8601 time the service received it. */
  received_at: string;
  /** The body as sent. */
  payload: Record<string, unknown>;
}

/** The failure type of an agent task refused for good (the agent is gone, the template unknown, nothing to ask). */
export const AGENT_TASK_REJECTED = 'AgentTaskRejected';

/** What an event trigger (or a cron job) starts: one agent task. */
export interface AgentTaskInput {
  tenantId: string;
  /** `trigger:<trigger_id>` or `cron:<cron_id>`: who started it. */
  origin: string;
  /** Inbound event id, or the schedule's run time for cron jobs: one task per (origin, key). */
  key: string;
  agentId: string;
  sessionTemplate: string;
  /** Input names and their values, already filled from the event. */
  inputs: Record<string, string>;
  /** The question the agent is asked (a cron job's, or one built from the event and inputs). */
  question: string;
  event: InboundEvent | null;
}

/** One agent task an inbound event led to. */
export interface DispatchedTask {
  trigger_id: string;
  workflow_id: string;
  /** false: this (trigger, event) already had its task, or `error` says why none was started. */
  started: boolean;
  /** Why the task was not started (a template path the event lacks); absent when it was, or already had been. */
  error?: string;
}

/**
 * Matches a normalised inbound event against the tenant's enabled triggers and starts one agent
 * task per matching (trigger, event id). With `triggerId` (the generic channel), only that trigger
 * is considered, and an unknown or foreign one is 10004. `integrationId`: the integration the event
 * came through; a trigger naming another one does not match.
 */
export interface TriggerDispatcher {
  dispatch(tenantId: string, event: InboundEvent, options?: { triggerId?: string; integrationId?: string }): Promise<DispatchedTask[]>;
}
