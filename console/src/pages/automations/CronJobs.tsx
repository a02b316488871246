/**
 * Automations → cron jobs: the list with each job's next run and latest run (pause, resume, run
 * now from the row). The job's form is in CronJobForm.tsx.
 */
import type { CreateCronJobRequest, CronJob } from '@combo/client';
import { Link } from 'react-router';
import { useCronJobs, useCronListRefresh, useRunCronNow, useSetCronPaused } from '../../api/automations-cron';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';

export type Overlap = NonNullable<CreateCronJobRequest['overlap']>;

export const OVERLAPS: { value: Overlap; label: string }[] = [
  { value: 'skip', label: 'skip: a run due while one goes on is skipped (default)' },
  { value: 'buffer_one', label: 'buffer_one: it runs once after' },
  { value: 'buffer_all', label: 'buffer_all: each runs after, in turn' },
  { value: 'cancel_other', label: 'cancel_other: the running one is cancelled' },
  { value: 'terminate_other', label: 'terminate_other: the running one is terminated' },
  { value: 'allow_all', label: 'allow_all: they run side by side' },
];

/** The job's state in words (a paused job has no next runs; a job whose schedule is gone runs no more). */
export function cronState(job: CronJob): { tone: 'ok' | 'neutral' | 'danger'; text: string } {
  if (!job.schedule_exists) return { tone: 'danger', text: 'schedule missing' };
  return job.paused ? { tone: 'neutral', text: 'paused' } : { tone: 'ok', text: 'active' };
}

/** Pause, resume and run now, with their outcome in a toast (shared by the list and the job's page). */
export function useCronActions(onRunStarted?: () => void) {
  const notify = useToast();
  const setPaused = useSetCronPaused();
  const runNow = useRunCronNow();
  return {
    pending: setPaused.isPending || runNow.isPending,
    error: setPaused.error ?? runNow.error,
    togglePaused: (job: CronJob) =>
      setPaused.mutate(
        { cronId: job.cron_id, paused: !job.paused },
        { onSuccess: (saved) => notify(`Cron job "${saved.name}" ${saved.paused ? 'paused' : 'resumed'}`) },
      ),
    runNow: (job: CronJob) =>
      runNow.mutate(job.cron_id, {
        onSuccess: () => {
          notify(`Cron job "${job.name}" started a run`);
          onRunStarted?.();
        },
      }),
  };
}

export function CronJobsTab() {
  const list = useCronJobs();
  useCronListRefresh();
  const actions = useCronActions();
  const columns: Column<CronJob>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (job) => (
        <>
          <Link to={job.cron_id}>{job.name}</Link>
          <div className="muted auto-small">
            <code>{job.agent_id}</code>
          </div>
        </>
      ),
    },
    {
      key: 'schedule',
      header: 'Schedule',
      render: (job) => (
        <>
          <code>{job.cron}</code>
          <div className="muted auto-small">{job.timezone}</div>
        </>
      ),
    },
    {
      key: 'state',
      header: 'State',
      render: (job) => {
        const state = cronState(job);
        return <StatusBadge tone={state.tone}>{state.text}</StatusBadge>;
      },
    },
    {
      key: 'next',
      header: 'Next run',
      render: (job) => <Time value={job.next_run_times[0]} empty={job.paused ? 'paused' : '—'} />,
    },
    {
      key: 'last',
      header: 'Latest run',
      render: (job) => {
        const last = job.recent_runs.at(-1);
        if (!last) return <span className="muted">none yet</span>;
        return (
          <>
            <Time value={last.started_at} />
            {last.status === 'running' && (
              <>
                {' '}
                <StatusBadge tone="info">running</StatusBadge>
              </>
            )}
          </>
        );
      },
    },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (job) => (
        <div className="auto-actions">
          <button
            type="button"
            className="button button-small"
            onClick={() => actions.togglePaused(job)}
            disabled={actions.pending || !job.schedule_exists}
          >
            {job.paused ? 'Resume' : 'Pause'}
            <span className="visually-hidden"> {job.name}</span>
          </button>
          <button
            type="button"
            className="button button-small"
            onClick={() => actions.runNow(job)}
            disabled={actions.pending || !job.schedule_exists}
          >
            Run now<span className="visually-hidden"> {job.name}</span>
          </button>
        </div>
      ),
    },
  ];
  return (
    <Section
      title="Cron jobs"
      actions={
        <Link className="auto-button-link button button-primary" to="new">
          New cron job
        </Link>
      }
    >
      <p className="help">
        Each job is a Temporal Schedule that asks an agent its question on every due time, in its time zone. Times are shown in your local
        time.
      </p>
      {actions.error !== null && <ErrorBanner error={actions.error} title="The cron job could not be changed" />}
      <DataTable
        caption="cron jobs"
        columns={columns}
        list={list}
        rowKey={(job) => job.cron_id}
        empty={
          <EmptyState
            title="No cron jobs yet"
            action={
              <Link className="auto-button-link button" to="new">
                Create a cron job
              </Link>
            }
          >
            <p>Create one to ask an agent something on a schedule: a daily digest, a weekly report.</p>
          </EmptyState>
        }
      />
    </Section>
  );
}
