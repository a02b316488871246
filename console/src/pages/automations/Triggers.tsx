/** Automations → event triggers: the list, with enable / disable and delete (after confirming). */
import type { EventTrigger } from '@combo/client';
import { useState } from 'react';
import { Link } from 'react-router';
import { useDeleteTrigger, useTriggers, useUpdateTrigger } from '../../api/automations-triggers';
import { ErrorBanner } from '../../components/ErrorBanner';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { channelLabel } from './channels';

/** Enable or disable a trigger at once (nothing is lost: it can be switched back). */
export function useToggleTrigger() {
  const update = useUpdateTrigger();
  const notify = useToast();
  const toggle = (trigger: EventTrigger) =>
    update.mutate(
      { triggerId: trigger.trigger_id, body: { enabled: !trigger.enabled } },
      { onSuccess: (saved) => notify(`Trigger "${saved.name}" ${saved.enabled ? 'enabled' : 'disabled'}`) },
    );
  return { toggle, error: update.error, pending: update.isPending };
}

export function TriggersTab() {
  const list = useTriggers();
  const remove = useDeleteTrigger();
  const notify = useToast();
  const { toggle, error: toggleError, pending } = useToggleTrigger();
  const [deleting, setDeleting] = useState<EventTrigger | null>(null);

  const columns: Column<EventTrigger>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (t) => (
        <>
          <Link to={t.trigger_id}>{t.name}</Link>
          {t.problems.length > 0 && (
            <>
              {' '}
              <StatusBadge tone="warn">{t.problems.length === 1 ? '1 problem' : `${t.problems.length} problems`}</StatusBadge>
            </>
          )}
        </>
      ),
    },
    {
      key: 'when',
      header: 'When',
      render: (t) => (
        <>
          <code>{t.trigger.match.event}</code> on {channelLabel(t.trigger.source)}
          {t.trigger.match.project_regex && (
            <div className="muted auto-small">
              project matches <code>{t.trigger.match.project_regex}</code>
            </div>
          )}
          {t.trigger.integration_id && (
            <div className="muted auto-small">
              through <code>{t.trigger.integration_id}</code>
            </div>
          )}
        </>
      ),
    },
    {
      key: 'then',
      header: 'Then',
      render: (t) => (
        <>
          <code>{t.trigger.action.agent_id}</code>
          <div className="muted auto-small">template {t.trigger.action.session_template}</div>
        </>
      ),
    },
    {
      key: 'status',
      header: 'Status',
      render: (t) => <StatusBadge tone={t.enabled ? 'ok' : 'neutral'}>{t.enabled ? 'enabled' : 'disabled'}</StatusBadge>,
    },
    { key: 'updated', header: 'Updated', render: (t) => <Time value={t.updated_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (t) => (
        <div className="auto-actions">
          <button type="button" className="button button-small" onClick={() => toggle(t)} disabled={pending}>
            {t.enabled ? 'Disable' : 'Enable'}
            <span className="visually-hidden"> {t.name}</span>
          </button>
          <Link className="auto-button-link button button-small" to={t.trigger_id}>
            Edit<span className="visually-hidden"> {t.name}</span>
          </Link>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(t)}>
            Delete<span className="visually-hidden"> {t.name}</span>
          </button>
        </div>
      ),
    },
  ];

  return (
    <Section
      title="Event triggers"
      actions={
        <Link className="auto-button-link button button-primary" to="new">
          New trigger
        </Link>
      }
    >
      <p className="help">
        A trigger starts an agent task when an inbound event of its channel matches: its event name, and optionally its project and the
        integration it came through. Try one on a sample event before saving it.
      </p>
      {toggleError !== null && <ErrorBanner error={toggleError} title="Could not change the trigger" />}
      <DataTable
        caption="event triggers"
        columns={columns}
        list={list}
        rowKey={(t) => t.trigger_id}
        empty={
          <EmptyState
            title="No event triggers yet"
            action={
              <Link className="auto-button-link button" to="new">
                Create a trigger
              </Link>
            }
          >
            <p>Create one to run an agent when a push, a pull request, a review or a chat message arrives.</p>
          </EmptyState>
        }
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the trigger "${deleting?.name ?? ''}"?`}
        confirmLabel="Delete trigger"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await remove.mutateAsync(deleting.trigger_id);
          notify(`Trigger "${deleting.name}" deleted`);
        }}
      >
        <p>Matching events start no task from now on; tasks already started go on. This cannot be undone.</p>
      </ConfirmDialog>
    </Section>
  );
}
