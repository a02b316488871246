/**
 * One cron job: its schedule, next run times and recent runs (each linking to its run), pause /
 * resume, run now, backfill over a past time range (with the runs it starts, watched as they
 * appear), delete after confirming. The job is read again every few seconds while runs start.
 */
import type { CronJob, CronJobBackfill } from '@combo/client';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useBackfillCron, useCronJob, useDeleteCronJob } from '../../api/automations-cron';
import { fieldOf } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { ProgressBar } from '../../components/ProgressBar';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { TimeRangeFields } from '../../components/TimeRangeFields';
import { useToast } from '../../components/Toast';
import { isoToLocal, type LocalRange } from '../../local-time';
import { cronState, type Overlap, OVERLAPS, useCronActions } from './CronJobs';
import { Facts } from './fields';

/** How long after a run now or a backfill the job is read every few seconds. */
const WATCH_MS = 90_000;
const QUICK_MS = 2_000;
const SLOW_MS = 30_000;

const RUN_TONES: Record<string, Tone> = {
  running: 'info',
  completed: 'ok',
  failed: 'danger',
  timed_out: 'danger',
  terminated: 'danger',
  canceled: 'neutral',
  paused: 'neutral',
  continued_as_new: 'neutral',
};

function RecentRuns({ job }: { job: CronJob }) {
  if (job.recent_runs.length === 0)
    return (
      <EmptyState title="No runs yet">
        <p>{job.paused ? 'The job is paused: resume it, or run it now.' : 'Runs appear here once due; run it now to see one at once.'}</p>
      </EmptyState>
    );
  // Temporal lists them oldest first; the newest first here.
  const runs = [...job.recent_runs].reverse();
  return (
    <div className="table-scroll">
      <table className="table">
        <caption className="visually-hidden">Recent runs</caption>
        <thead>
          <tr>
            <th scope="col">Due</th>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Run</th>
            <th scope="col">Workflow</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.run_id}>
              <td>
                <Time value={run.scheduled_at} />
              </td>
              <td>
                <Time value={run.started_at} />
              </td>
              <td>
                {run.status ? (
                  <StatusBadge tone={RUN_TONES[run.status] ?? 'neutral'}>{run.status.replaceAll('_', ' ')}</StatusBadge>
                ) : (
                  <span className="muted">unknown</span>
                )}
              </td>
              <td>
                <Link to={`/sessions/runs/${run.trace_id}`} className="auto-mono">
                  {run.trace_id}
                </Link>
              </td>
              <td>
                <code className="muted">{run.workflow_id}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BackfillForm({ job, onStarted }: { job: CronJob; onStarted: () => void }) {
  const backfill = useBackfillCron();
  const notify = useToast();
  const [range, setRange] = useState<LocalRange>(() => ({ since: isoToLocal(Date.now() - 86_400_000), until: isoToLocal(Date.now()) }));
  const [overlap, setOverlap] = useState<Overlap>('buffer_all');
  const [done, setDone] = useState<CronJobBackfill | null>(null);
  const ids = { overlap: useId(), help: useId() };
  const invalid = fieldOf(backfill.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    backfill.mutate(
      { cronId: job.cron_id, body: { since: new Date(range.since).toISOString(), until: new Date(range.until).toISOString(), overlap } },
      {
        onSuccess: (result) => {
          setDone(result);
          notify(
            result.runs === 0 ? 'No due times in that range' : `Backfill of ${result.runs} run${result.runs === 1 ? '' : 's'} started`,
          );
          if (result.runs > 0) onStarted();
        },
      },
    );
  };

  // The backfilled runs as they appear among the recent runs (Temporal keeps the last 10).
  const seen = done
    ? job.recent_runs.filter(
        (r) => Date.parse(r.scheduled_at) >= Date.parse(done.since) && Date.parse(r.scheduled_at) < Date.parse(done.until),
      )
    : [];
  const expected = done ? Math.min(done.runs, 10) : 0;
  const finished = seen.filter((r) => r.status !== null && r.status !== 'running').length;

  return (
    <>
      <form className="form-row" onSubmit={submit} aria-label="Backfill" aria-describedby={ids.help}>
        <TimeRangeFields
          value={range}
          onChange={setRange}
          labels={{ since: 'From (local time, inclusive)', until: 'Until (local time, exclusive)' }}
          required
          invalid={invalid}
        />
        <div className="field">
          <label htmlFor={ids.overlap}>Overlap</label>
          <select
            id={ids.overlap}
            value={overlap}
            onChange={(e) => setOverlap(e.target.value as Overlap)}
            aria-invalid={invalid === 'overlap'}
          >
            {OVERLAPS.map((o) => (
              <option key={o.value} value={o.value}>
                {/* The backfill's own default is buffer_all, not the job's (skip). */}
                {o.value === 'buffer_all' ? 'buffer_all: one after another, each runs (default)' : o.label.replace(' (default)', '')}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-action">
          <button type="submit" className="button" disabled={backfill.isPending || !job.schedule_exists}>
            {backfill.isPending ? 'Starting…' : 'Backfill'}
          </button>
        </div>
      </form>
      <p id={ids.help} className="help">
        Runs the job for each of its due times in the range, paused or not: at most 1000 at once, and not into the future (those run on
        schedule).
      </p>
      {backfill.error !== null && <ErrorBanner error={backfill.error} title="The backfill was refused" />}
      {done && (
        <div className="auto-backfill-result" role="status">
          {done.runs === 0 ? (
            <p>No due times between those bounds: nothing was started.</p>
          ) : (
            <>
              <p>
                {done.runs} due time{done.runs === 1 ? '' : 's'}, from <Time value={done.first_run_at} /> to{' '}
                <Time value={done.last_run_at} />, overlap <code>{done.overlap}</code>. Temporal starts up to 10 a second.
              </p>
              <ProgressBar
                label="Backfilled runs started"
                value={Math.min(seen.length, expected)}
                max={expected}
                text={`${Math.min(seen.length, expected)} of ${expected}${done.runs > expected ? ` (the last ${expected} of ${done.runs} are shown)` : ''}, ${finished} finished`}
              />
            </>
          )}
        </div>
      )}
    </>
  );
}

export function CronJobPage({ cronId }: { cronId: string }) {
  const navigate = useNavigate();
  const notify = useToast();
  // Read every few seconds while runs start (a run now, a backfill, a run going on), every half minute otherwise.
  const watching = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (watching.current) clearTimeout(watching.current);
    },
    [],
  );
  const watch = () => {
    if (watching.current) clearTimeout(watching.current);
    watching.current = setTimeout(() => (watching.current = null), WATCH_MS);
    void job.refetch();
  };
  const job = useCronJob(cronId, (current) =>
    current?.recent_runs.some((r) => r.status === 'running') === true || watching.current !== null ? QUICK_MS : SLOW_MS,
  );
  const data = job.data;
  const actions = useCronActions(watch);
  const remove = useDeleteCronJob();
  const [deleting, setDeleting] = useState(false);

  if (!data)
    return (
      <PageLayout title="Cron job">
        <p>
          <Link to="/automations/cron">← Cron jobs</Link>
        </p>
        {job.error ? (
          <ErrorBanner error={job.error} title="Could not load the cron job" onRetry={() => void job.refetch()} />
        ) : (
          <p className="muted loading">Loading the cron job…</p>
        )}
      </PageLayout>
    );

  const state = cronState(data);
  return (
    <PageLayout
      title={data.name}
      description={
        <>
          <code>{data.cron_id}</code> <StatusBadge tone={state.tone}>{state.text}</StatusBadge>
        </>
      }
      actions={
        <>
          <button
            type="button"
            className="button"
            onClick={() => actions.togglePaused(data)}
            disabled={actions.pending || !data.schedule_exists}
          >
            {data.paused ? 'Resume' : 'Pause'}
          </button>
          <button type="button" className="button" onClick={() => actions.runNow(data)} disabled={actions.pending || !data.schedule_exists}>
            Run now
          </button>
          {data.schedule_exists && (
            <Link className="button" to={`/automations/cron/${data.cron_id}/edit`}>
              Change settings
            </Link>
          )}
          <button type="button" className="button button-danger-quiet" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </>
      }
    >
      <p>
        <Link to="/automations/cron">← Cron jobs</Link>
      </p>
      {actions.error !== null && <ErrorBanner error={actions.error} title="The cron job could not be changed" />}
      {job.error !== null && <ErrorBanner error={job.error} title="Could not refresh the cron job" onRetry={() => void job.refetch()} />}
      {!data.schedule_exists && (
        <p className="banner banner-warn" role="status">
          Its Temporal Schedule <code>{data.schedule_id}</code> was removed outside the service: the job runs no more. Delete it, and create
          it again if it is still wanted.
        </p>
      )}
      <div className="auto-columns">
        <Section title="Schedule">
          <Facts
            items={[
              ['Expression', <code key="c">{data.cron}</code>],
              ['Time zone', data.timezone],
              ['Agent', <code key="a">{data.agent_id}</code>],
              ['Session template', data.session_template],
              ['Overlap', <code key="o">{data.overlap}</code>],
              [
                'Question',
                <span key="q" className="auto-pre-wrap">
                  {data.question}
                </span>,
              ],
              [
                'Inputs',
                Object.keys(data.inputs).length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <ul className="auto-plain-list">
                    {Object.entries(data.inputs).map(([name, value]) => (
                      <li key={name}>
                        <code>{name}</code>: {value}
                      </li>
                    ))}
                  </ul>
                ),
              ],
              ['Temporal Schedule', <code key="s">{data.schedule_id}</code>],
              ['Created', <Time key="t" value={data.created_at} />],
            ]}
          />
        </Section>
        <Section title="Next runs">
          {data.next_run_times.length === 0 ? (
            <p className="muted">{data.paused ? 'None while paused: resume the job to schedule its runs.' : 'None scheduled.'}</p>
          ) : (
            <ol className="auto-next-runs" aria-label="Next run times">
              {data.next_run_times.map((at) => (
                <li key={at}>
                  <Time value={at} />
                </li>
              ))}
            </ol>
          )}
        </Section>
      </div>
      <Section title="Recent runs">
        <RecentRuns job={data} />
      </Section>
      <Section title="Backfill">
        <BackfillForm job={data} onStarted={watch} />
      </Section>
      <ConfirmDialog
        open={deleting}
        title={`Delete the cron job "${data.name}"?`}
        confirmLabel="Delete cron job"
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await remove.mutateAsync(data.cron_id);
          notify(`Cron job "${data.name}" deleted`);
          void navigate('/automations/cron');
        }}
      >
        <p>Its Temporal Schedule is deleted and no run is started any more; runs already going on finish. This cannot be undone.</p>
      </ConfirmDialog>
    </PageLayout>
  );
}
