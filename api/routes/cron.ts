import { AppError, ErrorCodes, invalid } from '../../common/errors';
import { newId } from '../../common/ids';
import { deletedResult, pageQuery } from '../../common/schemas/common';
import {
  canonicalTimeZone, createCronBody, type CronJob, cronJobPage, cronJob, cronParams, cronTriggered, updateCronBody,
} from '../../common/schemas/cron';
import type { CronJobDoc } from '../../stores/cron-jobs';
import {
  createCronSchedule, cronScheduleId, deleteCronSchedule, readCronSchedule, setCronSchedulePaused, triggerCronSchedule,
} from '../../triggers/cron-schedule';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Scheduled jobs';

export const cronRoutes = ({ cronJobs, agents, temporal, config, log }: Services) => {
  const taskQueue = config.TEMPORAL_TASK_QUEUE;

  /** The job must name an agent of the tenant: as a parameter mistake (10001), not a missing resource. */
  async function checkAgent(tenantId: string, agentId: string): Promise<void> {
    try {
      await agents.get(tenantId, agentId);
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND) {
        throw invalid(`body.agent_id: agent ${agentId} does not exist`, { field: 'body.agent_id' });
      }
      throw err;
    }
  }

  async function present(doc: CronJobDoc, options: { runStatuses: boolean }): Promise<CronJob> {
    const state = await readCronSchedule(temporal, doc._id, options);
    return {
      cron_id: doc._id,
      name: doc.name,
      cron: doc.cron,
      timezone: doc.timezone,
      agent_id: doc.agent_id,
      question: doc.question,
      inputs: doc.inputs,
      session_template: doc.session_template,
      overlap: doc.overlap,
      paused: state?.paused ?? doc.paused,
      schedule_id: cronScheduleId(doc._id),
      schedule_exists: state !== null,
      next_run_times: state?.nextRunTimes ?? [],
      recent_runs: state?.recentRuns ?? [],
      created_at: doc.created_at.toISOString(),
      updated_at: doc.updated_at.toISOString(),
    };
  }

  return [
    defineRoute({
      method: 'post', path: '/v1/cron', operationId: 'createCronJob', tag, summary: 'Create a job',
      description:
        'Runs an agent task on `agent_id` with `question` and `inputs` at every time `cron` names in `timezone`, as a Temporal ' +
        'Schedule; each run is a workflow `cron-task-<cron_id>-<due time>`. A run missed by more than a minute (service down) is skipped. ' +
        'An unknown agent, expression or time zone is 10001 naming the field.',
      body: createCronBody, response: cronJob,
      handler: async ({ principal, body }) => {
        await checkAgent(principal.tenantId, body.agent_id);
        const now = new Date();
        const doc: CronJobDoc = {
          _id: newId('crn'),
          tenant_id: principal.tenantId,
          ...body,
          timezone: canonicalTimeZone(body.timezone),
          created_at: now,
          updated_at: now,
        };
        // The record first: should the process die before the schedule exists, the job shows
        // `schedule_exists: false` and can be deleted, whereas a schedule without its record would
        // run tasks no API call can see or stop.
        await cronJobs.insert(doc);
        try {
          await createCronSchedule(temporal, taskQueue, doc);
        } catch (err) {
          await cronJobs.delete(doc.tenant_id, doc._id).catch((cleanupErr: unknown) =>
            log.warn('cron job record left without its schedule', { cron_id: doc._id, error: String(cleanupErr) }),
          );
          throw err;
        }
        return present(doc, { runStatuses: false });
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/cron', operationId: 'listCronJobs', tag, summary: "List the tenant's jobs, newest first",
      description: 'Each with its next run times and recent runs read from Temporal; a recent run\'s status is only given when it is running (GET one job for all).',
      query: pageQuery, response: cronJobPage,
      handler: async ({ principal, query }) => {
        const page = await cronJobs.list(principal.tenantId, query);
        return { ...page, items: await Promise.all(page.items.map((doc) => present(doc, { runStatuses: false }))) };
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/cron/{cron_id}', operationId: 'getCronJob', tag, summary: 'Get one job with its next and recent runs',
      params: cronParams, response: cronJob,
      handler: async ({ principal, params }) => present(await cronJobs.get(principal.tenantId, params.cron_id), { runStatuses: true }),
    }),
    defineRoute({
      method: 'put', path: '/v1/cron/{cron_id}', operationId: 'updateCronJob', tag, summary: 'Pause or resume a job',
      description: 'Due times passing while paused are not made up. 10005 when the job\'s Temporal Schedule no longer exists.',
      params: cronParams, body: updateCronBody, response: cronJob,
      handler: async ({ principal, params, body }) => {
        const doc = await cronJobs.get(principal.tenantId, params.cron_id);
        await setCronSchedulePaused(temporal, doc._id, body.paused);
        await cronJobs.setPaused(doc.tenant_id, doc._id, body.paused);
        return present({ ...doc, paused: body.paused }, { runStatuses: false });
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/cron/{cron_id}/trigger', operationId: 'triggerCronJob', tag, summary: 'Run a job now',
      description:
        'Starts one run at once, paused or not, under the job\'s overlap policy (with `skip`, nothing starts while a run is going). ' +
        'The run appears in `recent_runs` shortly after. 10005 when the job\'s Temporal Schedule no longer exists.',
      params: cronParams, response: cronTriggered,
      handler: async ({ principal, params }) => {
        const doc = await cronJobs.get(principal.tenantId, params.cron_id);
        const triggeredAt = new Date();
        await triggerCronSchedule(temporal, doc._id, doc.overlap);
        return { cron_id: doc._id, triggered_at: triggeredAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'delete', path: '/v1/cron/{cron_id}', operationId: 'deleteCronJob', tag, summary: 'Delete a job',
      description: 'Removes its Temporal Schedule, so no further run starts; a run already going finishes.',
      params: cronParams, response: deletedResult,
      handler: async ({ principal, params }) => {
        const doc = await cronJobs.get(principal.tenantId, params.cron_id);
        await deleteCronSchedule(temporal, doc._id);
        await cronJobs.delete(doc.tenant_id, doc._id);
        return { deleted: true as const };
      },
    }),
  ];
};
