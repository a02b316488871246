import type { Db } from 'mongodb';
import { notFound } from '../common/errors';
import type { OverlapPolicy } from '../common/schemas/cron';
import type { SessionTemplateName } from '../common/session-template-names';
import { findPage, type PageRequest } from './pagination';

/** A cron job's configuration. Its Temporal Schedule (`cron-<_id>`) holds the run state. */
export interface CronJobDoc {
  _id: string;
  tenant_id: string;
  name: string;
  cron: string;
  timezone: string;
  agent_id: string;
  question: string;
  inputs: Record<string, string>;
  session_template: SessionTemplateName;
  overlap: OverlapPolicy;
  /** As last set through the API; Temporal's schedule state is what the API shows when it can read it. */
  paused: boolean;
  created_at: Date;
  updated_at: Date;
}

export function createCronJobStore(db: Db) {
  const jobs = db.collection<CronJobDoc>('cron_jobs');

  return {
    /** The ids of the tenant's jobs that run the agent. */
    async idsForAgent(tenantId: string, agentId: string): Promise<string[]> {
      const docs = await jobs.find({ tenant_id: tenantId, agent_id: agentId }, { projection: { _id: 1 } }).toArray();
      return docs.map((d) => d._id);
    },

    async insert(doc: CronJobDoc): Promise<void> {
      await jobs.insertOne(doc);
    },

    async get(tenantId: string, cronId: string): Promise<CronJobDoc> {
      const doc = await jobs.findOne({ _id: cronId, tenant_id: tenantId });
      if (!doc) throw notFound('cron job', cronId);
      return doc;
    },

    list: (tenantId: string, page: PageRequest) => findPage(jobs, { tenant_id: tenantId }, page, (d: CronJobDoc) => d),

    async setPaused(tenantId: string, cronId: string, paused: boolean): Promise<void> {
      const { matchedCount } = await jobs.updateOne({ _id: cronId, tenant_id: tenantId }, { $set: { paused, updated_at: new Date() } });
      if (matchedCount === 0) throw notFound('cron job', cronId);
    },

    /** Writes the job's settings as given (all but its tenant and creation time). */
    async replace(job: CronJobDoc): Promise<void> {
      const { _id, tenant_id, created_at: _createdAt, ...settings } = job;
      const { matchedCount } = await jobs.updateOne({ _id, tenant_id }, { $set: settings });
      if (matchedCount === 0) throw notFound('cron job', _id);
    },

    /** Returns false when the job was already gone. */
    async delete(tenantId: string, cronId: string): Promise<boolean> {
      const { deletedCount } = await jobs.deleteOne({ _id: cronId, tenant_id: tenantId });
      return deletedCount > 0;
    },
  };
}

export type CronJobStore = ReturnType<typeof createCronJobStore>;
