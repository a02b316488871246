import type { InboundChannel, InboundEvent } from '../common/inbound-event';
import type { TriggerConfig } from '../common/schemas/triggers';
import { agentTaskFor } from './agent-task-plan';
import { normaliseInbound } from './channels';
import { type ConditionOutcome, explainMatch } from './match';

/** The id a previewed trigger plans its task under: it has none of its own, and nothing is started. */
const PREVIEW_TRIGGER_ID = 'trg_preview';

export interface TriggerPreviewInput {
  tenantId: string;
  /** The channel the sample arrives on. */
  source: InboundChannel | 'generic';
  trigger: TriggerConfig;
  enabled: boolean;
  payload: Record<string, unknown>;
  /** The sample's headers, names in any case (the channels read some: X-GitHub-Event, X-Gitea-Event). */
  headers: Record<string, string>;
  eventId: string;
  /** The integration the sample is taken to arrive through. */
  integrationId?: string;
  receivedAt: Date;
}

export interface TriggerPreview {
  event: InboundEvent;
  matches: boolean;
  conditions: ConditionOutcome[];
  task: {
    agent_id: string;
    session_template: TriggerConfig['action']['session_template'];
    inputs: Record<string, string>;
    question: string;
  } | null;
  error: string | null;
  would_start: boolean;
}

/**
 * What an inbound call with this sample would do with this trigger, through the very functions the
 * real call uses: the channel's normalisation, the trigger's match (each condition explained) and
 * the task's plan (inputs filled, or the path the event lacks, in the words of the inbound reply).
 * The inputs are filled whether the trigger matches or not. Pure: starts and stores nothing.
 */
export function previewTrigger(input: TriggerPreviewInput): TriggerPreview {
  // Node hands the real call its headers with lowercase names; the channels read them so.
  const headers = Object.fromEntries(Object.entries(input.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const event = normaliseInbound(input.source, headers, input.payload, input.eventId, input.receivedAt);
  const conditions = explainMatch({ enabled: input.enabled, ...input.trigger }, event, input.integrationId);
  const matches = conditions.every((c) => c.passed);
  const planned = agentTaskFor(input.tenantId, { trigger_id: PREVIEW_TRIGGER_ID, trigger: input.trigger }, event);
  const task =
    'task' in planned
      ? {
          agent_id: planned.task.agentId,
          session_template: input.trigger.action.session_template,
          inputs: planned.task.inputs,
          question: planned.task.question,
        }
      : null;
  const error = 'error' in planned ? planned.error : null;
  return { event, matches, conditions, task, error, would_start: matches && error === null };
}
