import type { Client } from '@temporalio/client';
import { conflict } from '../common/errors';
import type { AgentDependents } from '../common/schemas/agent-delete';
import type { AgentStore } from '../stores/agents';
import type { CronJobStore } from '../stores/cron-jobs';
import type { SessionStore } from '../stores/sessions';
import type { TriggerStore } from '../stores/triggers';
import { deleteCronSchedule } from './cron';

const none = (d: AgentDependents) => d.cron_ids.length === 0 && d.trigger_ids.length === 0;

export interface AgentCommandDeps {
  agents: AgentStore;
  sessions: SessionStore;
  cronJobs: CronJobStore;
  triggers: TriggerStore;
  temporal: Client;
}

/**
 * Deleting an agent must not leave cron jobs or triggers that would start tasks on nothing: they
 * refuse the delete (10005 naming them) unless the caller asks for them to go too.
 */
export function createAgentCommands({ agents, sessions, cronJobs, triggers, temporal }: AgentCommandDeps) {
  async function dependents(tenantId: string, agentId: string): Promise<AgentDependents> {
    const [cronIds, triggerIds] = await Promise.all([cronJobs.idsForAgent(tenantId, agentId), triggers.idsForAgent(tenantId, agentId)]);
    return { cron_ids: cronIds, trigger_ids: triggerIds };
  }

  /** Schedule before record, as the cron API does: a failure part-way leaves a job that can be deleted again, never a schedule without its record. */
  async function removeDependents(tenantId: string, found: AgentDependents): Promise<void> {
    for (const cronId of found.cron_ids) {
      await deleteCronSchedule(temporal, cronId);
      await cronJobs.delete(tenantId, cronId);
    }
    await triggers.deleteMany(tenantId, found.trigger_ids);
  }

  return {
    async remove(tenantId: string, agentId: string, { cascade }: { cascade: boolean }): Promise<void> {
      await agents.get(tenantId, agentId);
      const found = await dependents(tenantId, agentId);
      if (!cascade && !none(found)) {
        throw conflict(
          `agent ${agentId} is used by ${found.cron_ids.length} cron job(s) and ${found.trigger_ids.length} event trigger(s); delete them first or pass cascade=true`,
          { ...found },
        );
      }
      await removeDependents(tenantId, found);
      await agents.delete(tenantId, agentId);
      // A job or trigger saved while this ran passed its agent check before the agent went: it
      // could never run, so it goes too (whatever `cascade` said).
      await removeDependents(tenantId, await dependents(tenantId, agentId));
      await sessions.deleteForAgent(tenantId, agentId);
    },
  };
}
