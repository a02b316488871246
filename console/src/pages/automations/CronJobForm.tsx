/**
 * A cron job's settings as a form (expression, time zone, agent, question, inputs, session
 * template, overlap policy): empty for a new job, or filled with a job's settings to change them
 * in place (`PUT /v1/cron/{cron_id}`: the same Temporal Schedule, its recent runs kept).
 */
import type { CreateCronJobRequest, CronJob } from '@combo/client';
import { type FormEvent, useId, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useCreateCronJob, useCronJob, useUpdateCronJob } from '../../api/automations-cron';
import { fieldOf } from '../../api/errors';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { useToast } from '../../components/Toast';
import { type Overlap, OVERLAPS } from './CronJobs';
import { AgentSelect, InputsEditor, inputRowsOf, inputsOf, type TemplateName, TemplateSelect } from './fields';

/** IANA time zones the browser knows, for the time zone field's suggestions. */
function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

type JobSettings = Required<Omit<CreateCronJobRequest, 'paused'>>;

interface CronJobFormProps {
  label: string;
  initial: JobSettings;
  /** Offered for a new job only: a job's pause is changed with Pause / Resume. */
  withPaused: boolean;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  cancelTo: string;
  onSubmit: (settings: JobSettings, paused: boolean) => void;
}

function CronJobForm({ label, initial, withPaused, submitLabel, pending, error, cancelTo, onSubmit }: CronJobFormProps) {
  const zones = useMemo(() => timeZones(), []);
  const [name, setName] = useState(initial.name);
  const [cron, setCron] = useState(initial.cron);
  const [timezone, setTimezone] = useState(initial.timezone);
  const [agentId, setAgentId] = useState(initial.agent_id);
  const [question, setQuestion] = useState(initial.question);
  const [inputs, setInputs] = useState(() => inputRowsOf(initial.inputs));
  const [template, setTemplate] = useState<TemplateName>(initial.session_template);
  const [overlap, setOverlap] = useState<Overlap>(initial.overlap);
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
  const invalid = fieldOf(error);
  const is = (field: string) => invalid === field || invalid?.startsWith(`${field}.`) === true;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(
      {
        name: name.trim(),
        cron: cron.trim(),
        timezone: timezone.trim(),
        agent_id: agentId,
        question,
        inputs: inputsOf(inputs),
        session_template: template,
        overlap,
      },
      paused,
    );
  };

  return (
    <form className="auto-form" onSubmit={submit} aria-label={label}>
      <div className="form-row">
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input
            id={ids.name}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
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
        {withPaused && (
          <div className="field auto-checkbox">
            <input id={ids.paused} type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} />
            <label htmlFor={ids.paused}>Create it paused</label>
          </div>
        )}
      </div>
      {error !== null && <ErrorBanner error={error} title={`Could not ${withPaused ? 'create' : 'change'} the cron job`} />}
      <div className="auto-form-actions">
        <button type="submit" className="button button-primary" disabled={pending}>
          {submitLabel}
        </button>
        <Link className="auto-button-link button button-quiet" to={cancelTo}>
          Cancel
        </Link>
      </div>
    </form>
  );
}

export function NewCronJob() {
  const navigate = useNavigate();
  const notify = useToast();
  const create = useCreateCronJob();
  const initial: JobSettings = {
    name: '',
    cron: '0 9 * * 1-5',
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    agent_id: '',
    question: '',
    inputs: {},
    session_template: 'default',
    overlap: 'skip',
  };
  const submit = (settings: JobSettings, paused: boolean) =>
    create.mutate(
      { ...settings, paused },
      {
        onSuccess: (job) => {
          notify(`Cron job "${job.name}" created`);
          void navigate(`/automations/cron/${job.cron_id}`);
        },
      },
    );
  return (
    <PageLayout title="New cron job" description="Ask an agent a question on a schedule. Each run opens a session of its own.">
      <p>
        <Link to="/automations/cron">← Cron jobs</Link>
      </p>
      <Section title="Cron job">
        <CronJobForm
          label="New cron job"
          initial={initial}
          withPaused
          submitLabel={create.isPending ? 'Creating…' : 'Create cron job'}
          pending={create.isPending}
          error={create.error}
          cancelTo="/automations/cron"
          onSubmit={submit}
        />
      </Section>
    </PageLayout>
  );
}

const settingsOf = (job: CronJob): JobSettings => ({
  name: job.name,
  cron: job.cron,
  timezone: job.timezone,
  agent_id: job.agent_id,
  question: job.question,
  inputs: job.inputs,
  session_template: job.session_template,
  overlap: job.overlap,
});

export function EditCronJob({ cronId }: { cronId: string }) {
  const navigate = useNavigate();
  const notify = useToast();
  const job = useCronJob(cronId, () => 0);
  const update = useUpdateCronJob();
  const back = `/automations/cron/${cronId}`;
  const submit = (settings: JobSettings) =>
    update.mutate(
      { cronId, body: settings },
      {
        onSuccess: (changed) => {
          notify(`Cron job "${changed.name}" saved`);
          void navigate(back);
        },
      },
    );
  return (
    <PageLayout
      title="Change cron job"
      description="The job keeps its schedule in Temporal and its recent runs; new due times follow the new expression and time zone."
    >
      <p>
        <Link to={back}>← {job.data?.name ?? 'Cron job'}</Link>
      </p>
      {job.error !== null && <ErrorBanner error={job.error} title="Could not load the cron job" />}
      {job.data && (
        <Section title="Settings">
          <CronJobForm
            label="Change the cron job"
            initial={settingsOf(job.data)}
            withPaused={false}
            submitLabel={update.isPending ? 'Saving…' : 'Save changes'}
            pending={update.isPending}
            error={update.error}
            cancelTo={back}
            onSubmit={submit}
          />
        </Section>
      )}
    </PageLayout>
  );
}
