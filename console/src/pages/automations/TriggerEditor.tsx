/**
 * An event trigger's page (new, or one to edit): the definition form (source, integration, match,
 * the action's agent, session template and inputs) and, beside it, the preview on a pasted sample
 * (`POST /v1/event-trigger/preview`, with the unsaved definition). Enable / disable and delete on
 * a saved trigger.
 */
import type { EventTrigger, EventTriggerConfig } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useIntegrationChoices } from '../../api/automations';
import { useCreateTrigger, useDeleteTrigger, useTrigger, useUpdateTrigger } from '../../api/automations-triggers';
import { errorDetails, fieldOf } from '../../api/errors';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { useToast } from '../../components/Toast';
import { type Channel, CHANNELS, CHANNEL_SAMPLES } from './channels';
import { AgentSelect, type InputRow, InputsEditor, inputRowsOf, inputsOf, type TemplateName, TemplateSelect } from './fields';
import { TriggerPreviewPanel } from './TriggerPreview';
import { useToggleTrigger } from './Triggers';

interface TriggerDraft {
  name: string;
  enabled: boolean;
  source: Channel;
  integrationId: string;
  event: string;
  projectRegex: string;
  agentId: string;
  template: TemplateName;
  inputs: InputRow[];
}

function draftOf(trigger?: EventTrigger): TriggerDraft {
  if (!trigger)
    return {
      name: '',
      enabled: true,
      source: 'git-b',
      integrationId: '',
      event: 'pull_request.opened',
      projectRegex: '',
      agentId: '',
      template: 'default',
      inputs: inputRowsOf({ pr_url: '{{ event.url }}', title: '{{ event.payload.pull_request.title }}' }),
    };
  const config = trigger.trigger;
  return {
    name: trigger.name,
    enabled: trigger.enabled,
    source: config.source,
    integrationId: config.integration_id ?? '',
    event: config.match.event,
    projectRegex: config.match.project_regex ?? '',
    agentId: config.action.agent_id,
    template: config.action.session_template,
    inputs: inputRowsOf(config.action.inputs),
  };
}

/** The definition as the API takes it (`trigger`). */
function configOf(draft: TriggerDraft): EventTriggerConfig {
  return {
    source: draft.source,
    ...(draft.integrationId ? { integration_id: draft.integrationId } : {}),
    match: { event: draft.event.trim(), ...(draft.projectRegex ? { project_regex: draft.projectRegex } : {}) },
    action: { agent_id: draft.agentId, session_template: draft.template, inputs: inputsOf(draft.inputs) },
  };
}

/** The integration a trigger hears: any of its channel, or one (listed for admins; typed otherwise). */
function IntegrationField({
  draft,
  set,
  invalid,
}: {
  draft: TriggerDraft;
  set: (change: Partial<TriggerDraft>) => void;
  invalid: boolean;
}) {
  const id = useId();
  const helpId = useId();
  const choices = useIntegrationChoices();
  const ofChannel = (choices.data?.items ?? []).filter((i) => i.channel === draft.source);
  if (choices.error)
    return (
      <div className="field">
        <label htmlFor={id}>Integration id (optional)</label>
        <input
          id={id}
          value={draft.integrationId}
          onChange={(e) => set({ integrationId: e.target.value.trim() })}
          placeholder="int_… (empty: every integration of the channel)"
          aria-invalid={invalid}
          aria-describedby={helpId}
        />
        <p id={helpId} className="help">
          The integrations could not be listed ({errorDetails(choices.error).message}).
        </p>
      </div>
    );
  return (
    <div className="field">
      <label htmlFor={id}>Integration</label>
      <select id={id} value={draft.integrationId} onChange={(e) => set({ integrationId: e.target.value })} aria-invalid={invalid}>
        <option value="">Any integration of the channel</option>
        {ofChannel.map((i) => (
          <option key={i.integration_id} value={i.integration_id}>
            {i.name} ({i.integration_id})
          </option>
        ))}
        {draft.integrationId !== '' && !ofChannel.some((i) => i.integration_id === draft.integrationId) && (
          <option value={draft.integrationId}>{draft.integrationId}</option>
        )}
      </select>
    </div>
  );
}

function TriggerForm({
  draft,
  setDraft,
  invalid,
  onSubmit,
  saving,
  saveError,
  submitLabel,
  showEnabled,
}: {
  draft: TriggerDraft;
  setDraft: (draft: TriggerDraft) => void;
  invalid: string | undefined;
  onSubmit: () => void;
  saving: boolean;
  saveError: unknown;
  submitLabel: string;
  /** A new trigger is created enabled or not; a saved one is switched by the page's Enable / Disable. */
  showEnabled: boolean;
}) {
  const set = (change: Partial<TriggerDraft>) => setDraft({ ...draft, ...change });
  const ids = { name: useId(), enabled: useId(), source: useId(), event: useId(), events: useId(), regex: useId(), regexHelp: useId() };
  const is = (field: string) => invalid === field || invalid?.startsWith(`${field}.`) === true;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  const inputPrefix = 'trigger.action.inputs.';
  return (
    <form className="auto-form" onSubmit={submit} aria-label="Trigger definition">
      <div className="form-row">
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input
            id={ids.name}
            value={draft.name}
            onChange={(e) => set({ name: e.target.value })}
            required
            maxLength={200}
            placeholder="e.g. Review new pull requests"
            aria-invalid={is('name')}
          />
        </div>
        {showEnabled && (
          <div className="field auto-checkbox">
            <input id={ids.enabled} type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
            <label htmlFor={ids.enabled}>Enabled</label>
          </div>
        )}
      </div>
      <fieldset className="auto-fieldset">
        <legend>When an event arrives</legend>
        <div className="form-row">
          <div className="field">
            <label htmlFor={ids.source}>Source (channel)</label>
            <select
              id={ids.source}
              value={draft.source}
              onChange={(e) => set({ source: e.target.value as Channel, integrationId: '' })}
              aria-invalid={is('trigger.source')}
            >
              {CHANNELS.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </div>
          <IntegrationField draft={draft} set={set} invalid={is('trigger.integration_id')} />
          <div className="field">
            <label htmlFor={ids.event}>Event</label>
            <input
              id={ids.event}
              value={draft.event}
              onChange={(e) => set({ event: e.target.value })}
              required
              list={ids.events}
              placeholder="push, pull_request.opened, * …"
              aria-invalid={is('trigger.match.event') || invalid === 'trigger.match'}
            />
            <datalist id={ids.events}>
              <option value="*">every event of the source</option>
              {CHANNEL_SAMPLES[draft.source].events.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </div>
          <div className="field">
            <label htmlFor={ids.regex}>Project pattern (optional)</label>
            <input
              id={ids.regex}
              value={draft.projectRegex}
              onChange={(e) => set({ projectRegex: e.target.value })}
              placeholder="e.g. ^acme/"
              maxLength={500}
              aria-invalid={is('trigger.match.project_regex')}
              aria-describedby={ids.regexHelp}
            />
            <p id={ids.regexHelp} className="help">
              RE2 syntax, searched in the event&apos;s project; empty: every project.
            </p>
          </div>
        </div>
      </fieldset>
      <fieldset className="auto-fieldset">
        <legend>Then run</legend>
        <div className="form-row">
          <AgentSelect value={draft.agentId} onChange={(agentId) => set({ agentId })} invalid={is('trigger.action.agent_id')} />
          <TemplateSelect
            value={draft.template}
            onChange={(template) => set({ template })}
            invalid={is('trigger.action.session_template')}
          />
        </div>
        <InputsEditor
          legend="Inputs"
          rows={draft.inputs}
          onChange={(inputs) => set({ inputs })}
          valueLabel="Template of input"
          placeholder="{{ event.url }}"
          invalidName={invalid?.startsWith(inputPrefix) ? invalid.slice(inputPrefix.length) : undefined}
          help={
            <>
              Filled from the event: <code>{'{{ event.url }}'}</code>, <code>event.project</code>, <code>event.actor</code>,{' '}
              <code>event.event</code>, <code>event.source</code>, <code>event.event_id</code>, <code>event.received_at</code>, and{' '}
              <code>event.payload.…</code> with any path of the body (<code>event.payload.commits.0.id</code>).
            </>
          }
        />
      </fieldset>
      {saveError !== null && <ErrorBanner error={saveError} title="Could not save the trigger" />}
      <div className="auto-form-actions">
        <button type="submit" className="button button-primary" disabled={saving}>
          {saving ? 'Saving…' : submitLabel}
        </button>
        <Link className="auto-button-link button button-quiet" to="/automations/triggers">
          Back to the triggers
        </Link>
      </div>
    </form>
  );
}

/** The definition and its preview side by side; `trigger` absent: a new one. */
function TriggerWorkbench({ trigger }: { trigger?: EventTrigger }) {
  const navigate = useNavigate();
  const notify = useToast();
  const create = useCreateTrigger();
  const update = useUpdateTrigger();
  const remove = useDeleteTrigger();
  const { toggle, error: toggleError, pending: toggling } = useToggleTrigger();
  const [draft, setDraft] = useState<TriggerDraft>(() => draftOf(trigger));
  const [previewInvalid, setPreviewInvalid] = useState<string | undefined>(undefined);
  const [deleting, setDeleting] = useState(false);
  const saveError = trigger ? update.error : create.error;
  const invalid = fieldOf(saveError) ?? previewInvalid;

  const save = () => {
    const body = { name: draft.name.trim(), trigger: configOf(draft) };
    if (!trigger) {
      create.mutate(
        { ...body, enabled: draft.enabled },
        {
          onSuccess: (saved) => {
            notify(`Trigger "${saved.name}" created`);
            void navigate(`/automations/triggers/${saved.trigger_id}`);
          },
        },
      );
      return;
    }
    update.mutate({ triggerId: trigger.trigger_id, body }, { onSuccess: (saved) => notify(`Trigger "${saved.name}" saved`) });
  };

  return (
    <PageLayout
      title={trigger ? trigger.name : 'New event trigger'}
      description={
        trigger ? (
          <>
            <code>{trigger.trigger_id}</code>{' '}
            <StatusBadge tone={trigger.enabled ? 'ok' : 'neutral'}>{trigger.enabled ? 'enabled' : 'disabled'}</StatusBadge>
          </>
        ) : (
          'Define when it fires and what it runs, and try it on a sample event before saving.'
        )
      }
      actions={
        trigger && (
          <>
            <button type="button" className="button" onClick={() => toggle(trigger)} disabled={toggling}>
              {trigger.enabled ? 'Disable' : 'Enable'}
            </button>
            <button type="button" className="button button-danger-quiet" onClick={() => setDeleting(true)}>
              Delete
            </button>
          </>
        )
      }
    >
      <p>
        <Link to="/automations/triggers">← Event triggers</Link>
      </p>
      {toggleError !== null && <ErrorBanner error={toggleError} title="Could not change the trigger" />}
      {trigger && trigger.problems.length > 0 && (
        <div className="banner banner-warn" role="status">
          <p className="banner-title">This trigger was saved before it was checked</p>
          <ul>
            {trigger.problems.map((problem) => (
              <li key={problem.field}>
                <code>{problem.field}</code>: {problem.message}
              </li>
            ))}
          </ul>
          <p>Fix them to save it again.</p>
        </div>
      )}
      {trigger?.inbound_path && (
        <p className="help">
          Generic events are posted to <code>{trigger.inbound_path}</code> (with <code>?integration_id=</code> of a generic integration).
        </p>
      )}
      <div className="auto-workbench">
        <Section title="Definition">
          <TriggerForm
            draft={draft}
            setDraft={(next) => {
              setDraft(next);
              setPreviewInvalid(undefined);
            }}
            invalid={invalid}
            onSubmit={save}
            saving={create.isPending || update.isPending}
            saveError={saveError}
            submitLabel={trigger ? 'Save trigger' : 'Create trigger'}
            showEnabled={!trigger}
          />
        </Section>
        <Section title="Preview on a sample event">
          <TriggerPreviewPanel
            config={configOf(draft)}
            enabled={trigger ? trigger.enabled : draft.enabled}
            onInvalidField={setPreviewInvalid}
          />
        </Section>
      </div>
      {trigger && (
        <ConfirmDialog
          open={deleting}
          title={`Delete the trigger "${trigger.name}"?`}
          confirmLabel="Delete trigger"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await remove.mutateAsync(trigger.trigger_id);
            notify(`Trigger "${trigger.name}" deleted`);
            void navigate('/automations/triggers');
          }}
        >
          <p>Matching events start no task from now on; tasks already started go on. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </PageLayout>
  );
}

export function NewTrigger() {
  return <TriggerWorkbench />;
}

export function EditTrigger({ triggerId }: { triggerId: string }) {
  const trigger = useTrigger(triggerId);
  if (trigger.data) return <TriggerWorkbench trigger={trigger.data} />;
  return (
    <PageLayout title="Event trigger">
      <p>
        <Link to="/automations/triggers">← Event triggers</Link>
      </p>
      {trigger.error ? (
        <ErrorBanner error={trigger.error} title="Could not load the trigger" onRetry={() => void trigger.refetch()} />
      ) : (
        <p className="muted loading">Loading the trigger…</p>
      )}
    </PageLayout>
  );
}
