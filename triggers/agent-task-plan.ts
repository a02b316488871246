import type { EventTrigger } from '../common/schemas/triggers';
import type { AgentTaskInput, InboundEvent } from '../common/inbound-event';
import { planSession } from './session-templates';
import { renderInputs } from '../common/event-templates';

const triggerOrigin = (triggerId: string) => `trigger:${triggerId}`;

/**
 * What a matching trigger starts for this event (its inputs filled, its template's question), or
 * why it starts nothing: an input names a path the event lacks, and an empty input would mislead.
 */
export function agentTaskFor(
  tenantId: string,
  trigger: Pick<EventTrigger, 'trigger_id' | 'trigger'>,
  event: InboundEvent,
): { task: AgentTaskInput } | { error: string } {
  const { action } = trigger.trigger;
  const rendered = renderInputs(action.inputs, event);
  if ('error' in rendered) return rendered;
  const { inputs } = rendered;
  const origin = triggerOrigin(trigger.trigger_id);
  // The question does not depend on the model being configured; the route is settled by the task.
  const { question } = planSession(action.session_template, { event, inputs, origin, modelConfigured: false });
  return {
    task: {
      tenantId,
      origin,
      key: event.event_id,
      agentId: action.agent_id,
      sessionTemplate: action.session_template,
      inputs,
      question,
      event,
    },
  };
}
