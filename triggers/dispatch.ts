import { createHash } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import { AgentId, EventId, TenantId, TriggerId } from '../common/search-attributes';
import { AGENT_TASK_BACKSTOP_MS } from '../common/workflow-starts';
import type { EventTrigger } from '../common/schemas/triggers';
import type { TriggerStore } from '../stores/triggers';
import { agentTaskWorkflow } from '../workflows/agent-task';
import type { AgentTaskInput, DispatchedTask, InboundEvent, TriggerDispatcher } from './inbound-event';
import { triggerMatches } from './match';
import { planSession } from './session-templates';
import { renderInputs } from './templates';

export interface TriggerDispatcherDeps {
  triggers: TriggerStore;
  temporal: Client;
  taskQueue: string;
}

/**
 * One workflow id per (trigger, event id): the server refuses a second start of the same id, so
 * however often an event is delivered (sender retries, several API processes) it starts one task.
 */
export const agentTaskWorkflowId = (triggerId: string, eventId: string) =>
  `agent-task-${triggerId}-${createHash('sha256').update(eventId).digest('hex').slice(0, 24)}`;

export const triggerOrigin = (triggerId: string) => `trigger:${triggerId}`;

/**
 * What a matching trigger starts for this event (its inputs filled, its template's question), or
 * why it starts nothing: an input names a path the event lacks, and an empty input would mislead.
 */
export function agentTaskFor(tenantId: string, trigger: EventTrigger, event: InboundEvent): { task: AgentTaskInput } | { error: string } {
  const { action } = trigger.trigger;
  const rendered = renderInputs(action.inputs, event);
  if ('error' in rendered) return rendered;
  const { inputs } = rendered;
  const origin = triggerOrigin(trigger.trigger_id);
  // The question does not depend on the model being configured; the route is settled by the task.
  const { question } = planSession(action.session_template, { event, inputs, origin, modelConfigured: false });
  return { task: { tenantId, origin, key: event.event_id, agentId: action.agent_id, sessionTemplate: action.session_template, inputs, question, event } };
}

export function createTriggerDispatcher({ triggers, temporal, taskQueue }: TriggerDispatcherDeps): TriggerDispatcher {
  async function start(tenantId: string, trigger: EventTrigger, event: InboundEvent): Promise<DispatchedTask> {
    const workflowId = agentTaskWorkflowId(trigger.trigger_id, event.event_id);
    const planned = agentTaskFor(tenantId, trigger, event);
    if ('error' in planned) return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started: false, error: planned.error };
    const input = planned.task;
    try {
      await temporal.workflow.start(agentTaskWorkflow, {
        workflowId,
        taskQueue,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        workflowExecutionTimeout: AGENT_TASK_BACKSTOP_MS,
        typedSearchAttributes: [
          { key: TenantId, value: tenantId },
          { key: AgentId, value: input.agentId },
          { key: EventId, value: event.event_id },
          { key: TriggerId, value: trigger.trigger_id },
        ],
        memo: { origin: input.origin, event: event.event, source: event.source },
      });
      return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started: true };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started: false };
      throw err;
    }
  }

  return {
    async dispatch(tenantId, event, options = {}) {
      const candidates = options.triggerId
        ? [await triggers.get(tenantId, options.triggerId)]
        : await triggers.enabledForSource(tenantId, event.source);
      const matching = candidates.filter((t) => triggerMatches({ enabled: t.enabled, ...t.trigger }, event, options.integrationId));
      // Every match is started even when one start fails; the sender's retry then starts only what is missing.
      const outcomes = await Promise.allSettled(matching.map((t) => start(tenantId, t, event)));
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      return outcomes.map((o) => (o as PromiseFulfilledResult<DispatchedTask>).value);
    },
  };
}
