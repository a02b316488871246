import { conflict } from '../common/errors';
import type { AgentDependents } from '../common/schemas/agent-delete';
import { deleteCronSchedule } from '../triggers/cron-schedule';
import type { Services } from './services';

const none = (d: AgentDependents) => d.cron_ids.length === 0 && d.trigger_ids.length === 0;

/**
 * Deleting an agent must not leave cron jobs or triggers that would start tasks on nothing: they
 * refuse the delete (10005 naming them) unless the caller asks for them to go too.
 */
export function createAgentDeletion({ agents, sessions, cronJobs, triggers, temporal }: Pick<Services, 'agents' | 'sessions' | 'cronJobs' | 'triggers' | 'temporal'>) {
  async function dependents(tenantId: string, agentId: string): Promise<AgentDependents> {
    const [crons, trigs] = await Promise.all([
      cronJobs.jobs.find({ tenant_id: tenantId, agent_id: agentId }, { projection: { _id: 1 } }).toArray(),
      triggers.triggers.find({ tenant_id: tenantId, 'trigger.action.agent_id': agentId }, { projection: { _id: 1 } }).toArray(),
    ]);
    return { cron_ids: crons.map((d) => d._id), trigger_ids: trigs.map((d) => d._id) };
  }

  /** Schedule before record, as the cron API does: a failure part-way leaves a job that can be deleted again, never a schedule without its record. */
  async function remove(tenantId: string, found: AgentDependents): Promise<void> {
    for (const cronId of found.cron_ids) {
      await deleteCronSchedule(temporal, cronId);
      await cronJobs.delete(tenantId, cronId);
    }
    if (found.trigger_ids.length > 0) await triggers.triggers.deleteMany({ tenant_id: tenantId, _id: { $in: found.trigger_ids } });
  }

  return async function deleteAgent(tenantId: string, agentId: string, { cascade }: { cascade: boolean }): Promise<void> {
    await agents.get(tenantId, agentId);
    const found = await dependents(tenantId, agentId);
    if (!cascade && !none(found)) {
      throw conflict(
        `agent ${agentId} is used by ${found.cron_ids.length} cron job(s) and ${found.trigger_ids.length} event trigger(s); delete them first or pass cascade=true`,
        { ...found },
      );
    }
    await remove(tenantId, found);
    await agents.delete(tenantId, agentId);
    // A job or trigger saved while this ran passed its agent check before the agent went: it
    // could never run, so it goes too (whatever `cascade` said).
    const late = await dependents(tenantId, agentId);
    await remove(tenantId, late);
    await sessions.deleteForAgent(tenantId, agentId);
  };
}
