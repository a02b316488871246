/**
 * Automations → cron jobs: the list with each job's next run and latest run (pause, resume, run
 * now from the row), and the form of a new job (expression, time zone, agent, question, inputs,
 * session template, overlap policy).
 */
import type { CreateCronJobRequest, CronJob } from '@combo/client';
import { type FormEvent, useId, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useCreateCronJob, useCronJobs, useCronListRefresh, useRunCronNow, useSetCronPaused } from '../../api/automations-cron';
import { fieldOf } from '../../api/errors';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { AgentSelect, type InputRow, InputsEditor, inputsOf, type TemplateName, TemplateSelect } from './fields';

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

/** IANA time zones the browser knows, for the time zone field's suggestions. */
function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

export function NewCronJob() {
  const navigate = useNavigate();
  const notify = useToast();
  const create = useCreateCronJob();
  const zones = useMemo(() => timeZones(), []);
  const [name, setName] = useState('');
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [agentId, setAgentId] = useState('');
  const [question, setQuestion] = useState('');
  const [inputs, setInputs] = useState<InputRow[]>([]);
  const [template, setTemplate] = useState<TemplateName>('default');
  const [overlap, setOverlap] = useState<Overlap>('skip');
  const [paused, setPaused] = useState(false);
  const ids = {
    name: useId(),
    cron: useId(),
    cronHelp: useId(),
    timezone: useId(),
    zones: useId(),
    question: useId(),
    overlap: useId(),
    paused: useId(),
  };
  const invalid = fieldOf(create.error);
  const is = (field: string) => invalid === field || invalid?.startsWith(`${field}.`) === true;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      {
        name: name.trim(),
        cron: cron.trim(),
        timezone: timezone.trim(),
        agent_id: agentId,
        question,
        inputs: inputsOf(inputs),
        session_template: template,
        overlap,
        paused,
      },
      {
        onSuccess: (job) => {
          notify(`Cron job "${job.name}" created`);
          void navigate(`/automations/cron/${job.cron_id}`);
        },
      },
    );
  };

  return (
    <PageLayout title="New cron job" description="Ask an agent a question on a schedule. Each run opens a session of its own.">
      <p>
        <Link to="/automations/cron">← Cron jobs</Link>
      </p>
      <Section title="Cron job">
        <form className="auto-form" onSubmit={submit} aria-label="New cron job">
          <div className="form-row">
            <div className="field">
              <label htmlFor={ids.name}>Name</label>
              <input
                id={ids.name}
                value={name}
                onChange={(e) => setName(e.target.value)}
                required
                maxLength={200}
                placeholder="e.g. Weekday digest"
                aria-invalid={is('name')}
              />
            </div>
            <div className="field">
              <label htmlFor={ids.cron}>Cron expression</label>
              <input
                id={ids.cron}
                className="auto-mono"
                value={cron}
                onChange={(e) => setCron(e.target.value)}
                required
                aria-invalid={is('cron')}
                aria-describedby={ids.cronHelp}
              />
            </div>
            <div className="field">
              <label htmlFor={ids.timezone}>Time zone</label>
              <input
                id={ids.timezone}
                value={timezone}
                onChange={(e) => setTimezone(e.target.value)}
                required
                list={ids.zones}
                aria-invalid={is('timezone')}
              />
              <datalist id={ids.zones}>
                {zones.map((zone) => (
                  <option key={zone} value={zone} />
                ))}
              </datalist>
            </div>
          </div>
          <p id={ids.cronHelp} className="help">
            Five fields: minute hour day-of-month month day-of-week, with <code>*</code>, values, ranges, steps, lists and JAN-DEC / SUN-SAT
            names; <code>0 9 * * 1-5</code> is weekdays at 09:00, <code>*/15 * * * *</code> every quarter hour. When both day fields are
            restricted, a run needs both (<code>0 9 1-7 * MON</code> is the first Monday).
          </p>
          <div className="form-row">
            <AgentSelect value={agentId} onChange={setAgentId} invalid={is('agent_id')} />
            <TemplateSelect value={template} onChange={setTemplate} invalid={is('session_template')} />
          </div>
          <div className="field">
            <label htmlFor={ids.question}>Question</label>
            <textarea
              id={ids.question}
              value={question}
              onChange={(e) => setQuestion(e.target.value)}
              required
              rows={3}
              placeholder="e.g. Summarise yesterday's merged pull requests."
              aria-invalid={is('question')}
            />
          </div>
          <InputsEditor
            legend="Inputs (optional)"
            rows={inputs}
            onChange={setInputs}
            valueLabel="Value of input"
            placeholder="value"
            invalidName={invalid?.startsWith('inputs.') ? invalid.slice('inputs.'.length) : undefined}
            help="Named values handed to the session template (a code review's diff, an import's source), the same on every run."
          />
          <div className="form-row">
            <div className="field">
              <label htmlFor={ids.overlap}>When a run is due while the previous one goes on</label>
              <select id={ids.overlap} value={overlap} onChange={(e) => setOverlap(e.target.value as Overlap)} aria-invalid={is('overlap')}>
                {OVERLAPS.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="field auto-checkbox">
              <input id={ids.paused} type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} />
              <label htmlFor={ids.paused}>Create it paused</label>
            </div>
          </div>
          {create.error !== null && <ErrorBanner error={create.error} title="Could not create the cron job" />}
          <div className="auto-form-actions">
            <button type="submit" className="button button-primary" disabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create cron job'}
            </button>
            <Link className="auto-button-link button button-quiet" to="/automations/cron">
              Cancel
            </Link>
          </div>
        </form>
      </Section>
    </PageLayout>
  );
}
