import { deletedResult, pageQuery } from '../../common/schemas/common';
import {
  backfillCronBody,
  createCronBody,
  cronBackfill,
  cronJobPage,
  cronJob,
  cronParams,
  cronTriggered,
  MAX_BACKFILL_RUNS,
  updateCronBody,
} from '../../common/schemas/cron';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Scheduled jobs';

export const cronRoutes = ({ commands }: Services) => {
  const cron = commands.cron;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/cron',
      operationId: 'createCronJob',
      tag,
      summary: 'Create a job',
      description:
        'Runs an agent task on `agent_id` with `question` and `inputs` at every time `cron` names in `timezone`, as a Temporal ' +
        'Schedule; each run is a workflow `cron-task-<cron_id>-<due time>`. A run missed by more than a minute (service down) is skipped. ' +
        'An unknown agent, expression or time zone is 10001 naming the field.',
      body: createCronBody,
      response: cronJob,
      handler: ({ principal, body }) => cron.create(principal.tenantId, body),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/cron',
      operationId: 'listCronJobs',
      tag,
      summary: "List the tenant's jobs, newest first",
      description:
        "Each with its next run times and recent runs read from Temporal; a recent run's status is only given when it is running (GET one job for all).",
      query: pageQuery,
      response: cronJobPage,
      handler: ({ principal, query }) => cron.list(principal.tenantId, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/cron/{cron_id}',
      operationId: 'getCronJob',
      tag,
      summary: 'Get one job with its next and recent runs',
      params: cronParams,
      response: cronJob,
      handler: ({ principal, params }) => cron.get(principal.tenantId, params.cron_id),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/cron/{cron_id}',
      operationId: 'updateCronJob',
      tag,
      summary: 'Change a job: pause or resume it, or change its settings',
      description:
        'Fields left out stay as they are. Due times passing while paused are not made up; a new expression or time zone ' +
        "applies to due times from now on. 10005 when the job's Temporal Schedule no longer exists.",
      params: cronParams,
      body: updateCronBody,
      response: cronJob,
      handler: ({ principal, params, body }) => cron.update(principal.tenantId, params.cron_id, body),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/cron/{cron_id}/trigger',
      operationId: 'triggerCronJob',
      tag,
      summary: 'Run a job now',
      description:
        "Starts one run at once, paused or not, under the job's overlap policy (with `skip`, nothing starts while a run is going). " +
        "The run appears in `recent_runs` shortly after. 10005 when the job's Temporal Schedule no longer exists.",
      params: cronParams,
      response: cronTriggered,
      handler: ({ principal, params }) => cron.trigger(principal.tenantId, params.cron_id),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/cron/{cron_id}/backfill',
      operationId: 'backfillCronJob',
      tag,
      summary: 'Run a job for past due times',
      description:
        "Starts one run for every due time of the job's expression (in its time zone) with `since` <= time < `until`, through " +
        "Temporal's schedule backfill: each is a normal run (`cron-task-<cron_id>-<due time>`, listed in `recent_runs` with that due " +
        'time as `scheduled_at`), paused job or not. By default they run one after another (`overlap` `buffer_all`). `until` may not ' +
        `be in the future; a range of more than ${MAX_BACKFILL_RUNS} due times is 10001 (backfill it in parts). The reply says what ` +
        "was asked for; the runs start over the following seconds (Temporal starts at most 10 per second). 10005 when the job's " +
        'Temporal Schedule no longer exists.',
      params: cronParams,
      body: backfillCronBody,
      response: cronBackfill,
      handler: ({ principal, params, body }) => cron.backfill(principal.tenantId, params.cron_id, body),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/cron/{cron_id}',
      operationId: 'deleteCronJob',
      tag,
      summary: 'Delete a job',
      description: 'Removes its Temporal Schedule, so no further run starts; a run already going finishes.',
      params: cronParams,
      response: deletedResult,
      handler: async ({ principal, params }) => {
        await cron.remove(principal.tenantId, params.cron_id);
        return { deleted: true as const };
      },
    }),
  ];
};
