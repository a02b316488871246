import type { Duration } from '@temporalio/common';
import {
  type Client,
  type ScheduleExecutionResult,
  ScheduleNotFoundError,
  type WorkflowExecutionStatusName,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { Config } from '../common/config';
import { agentTaskTraceId } from '../common/agent-task-ids';
import { AppError, conflict, ErrorCodes, invalid } from '../common/errors';
import { newId } from '../common/ids';
import type { Logger } from '../common/logger';
import {
  type BackfillCronBody,
  canonicalTimeZone,
  type CreateCronBody,
  type CronBackfill,
  type CronJob,
  type CronRun,
  MAX_BACKFILL_RUNS,
  type UpdateCronBody,
} from '../common/schemas/cron';
import type { AgentStore } from '../stores/agents';
import type { CronJobDoc, CronJobStore } from '../stores/cron-jobs';
import type { PageRequest } from '../stores/pagination';
import type { AgentTaskInput } from '../common/inbound-event';
import { RUN_STATUS_MEMO } from '../workflows/agent-task';
import { dueTimesBetween } from './schedule-times';
import { cronScheduleId } from '../common/workflow-ids';
import { cronSearchAttributes, cronTaskAction, SCHEDULE_OVERLAP } from './workflow-starts';

/*
 * A cron job is a Temporal Schedule whose action starts one agent task per due time. Temporal owns
 * the timing (time zone, catch-up after an outage, overlap); this module maps a job onto it and
 * reads its state back.
 */

/** A run missed by more than this (server down, say) is skipped, not started late. */
const CATCHUP_WINDOW: Duration = '1 minute';
const NEXT_RUNS_SHOWN = 5;

/** The schedule's arguments are fixed; the workflow id already tells one run from another, hence a constant key. */
function cronTaskInput(job: CronJobDoc): AgentTaskInput {
  return {
    tenantId: job.tenant_id,
    origin: `cron:${job._id}`,
    key: 'scheduled',
    agentId: job.agent_id,
    sessionTemplate: job.session_template,
    inputs: job.inputs,
    question: job.question,
    event: null,
  };
}

/** Deletes the job's schedule; one already gone is fine. */
export async function deleteCronSchedule(client: Client, cronId: string): Promise<void> {
  try {
    await client.schedule.getHandle(cronScheduleId(cronId)).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
  }
}

const RUN_STATUS: Partial<Record<WorkflowExecutionStatusName, NonNullable<CronRun['status']>>> = {
  RUNNING: 'running',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

export interface CronCommandDeps {
  temporal: Client;
  config: Config;
  log: Logger;
  cronJobs: CronJobStore;
  agents: AgentStore;
}

export function createCronCommands({ temporal, config, log, cronJobs, agents }: CronCommandDeps) {
  const missingSchedule = (cronId: string) =>
    conflict(`the schedule of cron job ${cronId} no longer exists in Temporal; delete the job and create it again`, { cron_id: cronId });

  /** Runs an operation on the job's schedule; a schedule gone from Temporal is a 10005. */
  async function onSchedule<T>(cronId: string, operation: (handle: ReturnType<Client['schedule']['getHandle']>) => Promise<T>): Promise<T> {
    try {
      return await operation(temporal.schedule.getHandle(cronScheduleId(cronId)));
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) throw missingSchedule(cronId);
      throw err;
    }
  }

  /** The schedule a job's settings make: when it runs, what it starts, and how runs overlap. */
  function scheduleOf(job: CronJobDoc) {
    const task = { cronId: job._id, tenantId: job.tenant_id, agentId: job.agent_id, input: cronTaskInput(job) };
    return {
      spec: { cronExpressions: [job.cron], timezone: job.timezone },
      action: cronTaskAction(config.TEMPORAL_TASK_QUEUE, task),
      policies: { overlap: SCHEDULE_OVERLAP[job.overlap], catchupWindow: CATCHUP_WINDOW },
      state: { paused: job.paused },
      typedSearchAttributes: cronSearchAttributes(task),
    };
  }

  /** Temporal's refusal of a spec is a 10001 on the field it concerns. */
  async function refusingBadSpecs<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      // The SDK turns the server's "Invalid schedule spec" (INVALID_ARGUMENT) into a TypeError.
      if (err instanceof TypeError) {
        const field = /time ?zone/i.test(err.message) ? 'body.timezone' : 'body.cron';
        throw invalid(`${field}: ${err.message}`, { field });
      }
      throw err;
    }
  }

  const createSchedule = (job: CronJobDoc) =>
    refusingBadSpecs(() => temporal.schedule.create({ scheduleId: cronScheduleId(job._id), ...scheduleOf(job), memo: { name: job.name } }));

  async function runStatus(run: ScheduleExecutionResult): Promise<CronRun['status']> {
    const { workflowId, firstExecutionRunId } = run.action.workflow;
    try {
      const described = await temporal.workflow.getHandle(workflowId, firstExecutionRunId).describe();
      // A task whose run was cancelled completes (a cancel is no failure of it); its memo says so.
      if (described.status.name === 'COMPLETED' && described.memo?.[RUN_STATUS_MEMO] === 'canceled') return 'canceled';
      return RUN_STATUS[described.status.name] ?? null;
    } catch (err) {
      // Past the namespace's retention the run is forgotten.
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  /**
   * The job with its schedule's live state. With `runStatuses`, each recent run's status is read
   * (one call per run); otherwise only running ones are known.
   */
  async function present(doc: CronJobDoc, { runStatuses }: { runStatuses: boolean }): Promise<CronJob> {
    let described;
    try {
      described = await temporal.schedule.getHandle(cronScheduleId(doc._id)).describe();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
    const base = {
      cron_id: doc._id,
      name: doc.name,
      cron: doc.cron,
      timezone: doc.timezone,
      agent_id: doc.agent_id,
      question: doc.question,
      inputs: doc.inputs,
      session_template: doc.session_template,
      overlap: doc.overlap,
      schedule_id: cronScheduleId(doc._id),
      created_at: doc.created_at.toISOString(),
      updated_at: doc.updated_at.toISOString(),
    };
    if (!described) return { ...base, paused: doc.paused, schedule_exists: false, next_run_times: [], recent_runs: [] };
    const running = new Set(described.info.runningActions.map((a) => a.workflow.firstExecutionRunId));
    const recent = described.info.recentActions;
    const statuses = runStatuses
      ? await Promise.all(recent.map(runStatus))
      : recent.map((run) => (running.has(run.action.workflow.firstExecutionRunId) ? ('running' as const) : null));
    const paused = described.state.paused;
    return {
      ...base,
      paused,
      schedule_exists: true,
      // Temporal lists due times even while paused; none of them will run then.
      next_run_times: paused ? [] : described.info.nextActionTimes.slice(0, NEXT_RUNS_SHOWN).map((t) => t.toISOString()),
      recent_runs: recent.map((run, i) => ({
        workflow_id: run.action.workflow.workflowId,
        run_id: run.action.workflow.firstExecutionRunId,
        trace_id: agentTaskTraceId(run.action.workflow.workflowId),
        scheduled_at: run.scheduledAt.toISOString(),
        started_at: run.takenAt.toISOString(),
        status: statuses[i] ?? null,
      })),
    };
  }

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

  /** Pauses or resumes the job's runs. */
  async function setPaused(tenantId: string, cronId: string, paused: boolean): Promise<CronJob> {
    const doc = await cronJobs.get(tenantId, cronId);
    await onSchedule(doc._id, (handle) => (paused ? handle.pause('paused through the API') : handle.unpause('unpaused through the API')));
    await cronJobs.setPaused(doc.tenant_id, doc._id, paused);
    return present({ ...doc, paused }, { runStatuses: false });
  }

  return {
    async create(tenantId: string, body: CreateCronBody): Promise<CronJob> {
      await checkAgent(tenantId, body.agent_id);
      const now = new Date();
      const doc: CronJobDoc = {
        _id: newId('crn'),
        tenant_id: tenantId,
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
        await createSchedule(doc);
      } catch (err) {
        await cronJobs
          .delete(doc.tenant_id, doc._id)
          .catch((cleanupErr: unknown) =>
            log.warn('cron job record left without its schedule', { cron_id: doc._id, error: String(cleanupErr) }),
          );
        throw err;
      }
      return present(doc, { runStatuses: false });
    },

    async list(tenantId: string, page: PageRequest) {
      const found = await cronJobs.list(tenantId, page);
      return { ...found, items: await Promise.all(found.items.map((doc) => present(doc, { runStatuses: false }))) };
    },

    get: async (tenantId: string, cronId: string) => present(await cronJobs.get(tenantId, cronId), { runStatuses: true }),

    /**
     * Changes some of the job's settings. The schedule first: Temporal may refuse the new spec, and a failure after it
     * leaves a schedule the same request, repeated, brings its record up to. The schedule's memo keeps the name it was
     * created with (Temporal cannot change a memo); the API shows the current one.
     */
    async update(tenantId: string, cronId: string, changes: UpdateCronBody): Promise<CronJob> {
      const doc = await cronJobs.get(tenantId, cronId);
      const { paused, ...settings } = changes;
      if (Object.keys(settings).length === 0 && paused !== undefined) return setPaused(tenantId, cronId, paused);
      if (settings.agent_id !== undefined && settings.agent_id !== doc.agent_id) await checkAgent(tenantId, settings.agent_id);
      const next: CronJobDoc = {
        ...doc,
        ...settings,
        ...(paused === undefined ? {} : { paused }),
        timezone: settings.timezone === undefined ? doc.timezone : canonicalTimeZone(settings.timezone),
        updated_at: new Date(),
      };
      // Left out, `paused` stays as Temporal has it (an operator may have paused the schedule in the Temporal UI).
      await onSchedule(doc._id, (handle) =>
        refusingBadSpecs(() =>
          handle.update((previous) => {
            next.paused = paused ?? previous.state.paused;
            return { ...scheduleOf(next), state: { paused: next.paused, note: previous.state.note } };
          }),
        ),
      );
      await cronJobs.replace(next);
      return present(next, { runStatuses: false });
    },

    /** Starts a run now, under the job's overlap policy (with `skip`, nothing starts while a run is going). */
    async trigger(tenantId: string, cronId: string): Promise<{ cron_id: string; triggered_at: string }> {
      const doc = await cronJobs.get(tenantId, cronId);
      const triggeredAt = new Date();
      await onSchedule(doc._id, (handle) => handle.trigger(SCHEDULE_OVERLAP[doc.overlap]));
      return { cron_id: doc._id, triggered_at: triggeredAt.toISOString() };
    },

    /**
     * Runs the job for its due times in [since, until) that are past, through Temporal's schedule
     * backfill: each is a run like a scheduled one (`cron-task-<cron_id>-<due time>`, in
     * `recent_runs`), started whether the job is paused or not. The count is Temporal's own reading
     * of the expression; more than MAX_BACKFILL_RUNS is refused (10001) before anything starts.
     */
    async backfill(tenantId: string, cronId: string, body: BackfillCronBody): Promise<CronBackfill> {
      const doc = await cronJobs.get(tenantId, cronId);
      const since = new Date(body.since);
      const until = new Date(body.until);
      if (until.getTime() > Date.now())
        throw invalid('body.until: must not be in the future; due times to come run on schedule', { field: 'body.until' });
      const { times, more } = await onSchedule(doc._id, (handle) =>
        dueTimesBetween(temporal, handle.scheduleId, since, until, MAX_BACKFILL_RUNS),
      );
      if (more)
        throw invalid(`body.until: the range holds more than ${MAX_BACKFILL_RUNS} due times of "${doc.cron}"; backfill it in parts`, {
          field: 'body.until',
          max_runs: MAX_BACKFILL_RUNS,
        });
      // Temporal's backfill range includes both ends: ending a millisecond early leaves `until` out.
      if (times.length > 0)
        await onSchedule(doc._id, (handle) =>
          handle.backfill({ start: since, end: new Date(until.getTime() - 1), overlap: SCHEDULE_OVERLAP[body.overlap] }),
        );
      return {
        cron_id: doc._id,
        since: since.toISOString(),
        until: until.toISOString(),
        overlap: body.overlap,
        runs: times.length,
        first_run_at: times[0]?.toISOString() ?? null,
        last_run_at: times[times.length - 1]?.toISOString() ?? null,
      };
    },

    /** Removes the schedule, then the record: no further run starts; a run already going finishes. */
    async remove(tenantId: string, cronId: string): Promise<void> {
      const doc = await cronJobs.get(tenantId, cronId);
      await deleteCronSchedule(temporal, doc._id);
      await cronJobs.delete(doc.tenant_id, doc._id);
    },
  };
}
