import type { Client } from '@temporalio/client';
import type { Config } from '../common/config';
import type { EventTrigger } from '../common/schemas/triggers';
import type { TriggerStore } from '../stores/triggers';
import { agentTaskFor } from '../triggers/agent-task-plan';
import type { DispatchedTask, InboundEvent, TriggerDispatcher } from '../common/inbound-event';
import { triggerMatches } from '../triggers/match';
import { agentTaskWorkflowId, startTriggeredAgentTask } from './workflow-starts';

/** Inbound events: each matching (trigger, event id) starts one agent task workflow. */
export function createInboundCommands({
  triggers,
  temporal,
  config,
}: {
  triggers: TriggerStore;
  temporal: Client;
  config: Config;
}): TriggerDispatcher {
  async function start(tenantId: string, trigger: EventTrigger, event: InboundEvent): Promise<DispatchedTask> {
    const workflowId = agentTaskWorkflowId(trigger.trigger_id, event.event_id);
    const planned = agentTaskFor(tenantId, trigger, event);
    if ('error' in planned) return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started: false, error: planned.error };
    const started = await startTriggeredAgentTask(temporal, config.TEMPORAL_TASK_QUEUE, trigger.trigger_id, event, planned.task);
    return { trigger_id: trigger.trigger_id, workflow_id: workflowId, started };
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
