/**
 * Deleting an agent asks first, then asks again when the API refuses because cron jobs or event
 * triggers run the agent (10005 with `data.cron_ids` / `data.trigger_ids`): delete those too
 * (`cascade=true`), or keep everything. A modal <dialog>: focus kept inside, Escape cancels, the
 * safe choice focused first.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { type DeleteBlockers, deleteBlockers, useDeleteAgent } from '../../api/agents';
import { ErrorBanner } from '../../components/ErrorBanner';

interface DeleteAgentDialogProps {
  /** The agent to delete; null: the dialog is closed. */
  agent: { agent_id: string; name: string } | null;
  onClose: () => void;
  onDeleted: (name: string, cascaded: DeleteBlockers | undefined) => void;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export function DeleteAgentDialog({ agent, onClose, onDeleted }: DeleteAgentDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();
  const remove = useDeleteAgent();
  const [blockers, setBlockers] = useState<DeleteBlockers | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const open = agent !== null;

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      element.showModal();
      cancel.current?.focus();
    } else if (!open && element.open) element.close();
  }, [open]);

  // Asked again (what runs the agent): the safe answer has the focus.
  useEffect(() => {
    if (blockers) cancel.current?.focus();
  }, [blockers]);

  const close = () => {
    setBlockers(undefined);
    setError(null);
    onClose();
  };

  const confirm = async () => {
    if (!agent) return;
    const cascade = blockers !== undefined;
    setError(null);
    setBusy(true);
    try {
      await remove.mutateAsync({ agentId: agent.agent_id, cascade });
      setBlockers(undefined);
      onClose();
      onDeleted(agent.name, blockers);
    } catch (failure) {
      const found = cascade ? undefined : deleteBlockers(failure);
      if (found) setBlockers(found);
      else setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={dialog}
      className="dialog agents-delete-dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) close();
      }}
    >
      <h2 id={titleId}>{blockers ? `Also delete what runs "${agent?.name ?? ''}"?` : `Delete the agent "${agent?.name ?? ''}"?`}</h2>
      <div id={bodyId} className="dialog-body">
        {blockers ? (
          <>
            <p>
              {[
                blockers.cronIds.length > 0 && plural(blockers.cronIds.length, 'cron job', 'cron jobs'),
                blockers.triggerIds.length > 0 && plural(blockers.triggerIds.length, 'event trigger', 'event triggers'),
              ]
                .filter(Boolean)
                .join(' and ')}{' '}
              run this agent, so the service kept it. Delete them with the agent (a cron job's schedule included; runs already going
              finish), or cancel and keep everything.
            </p>
            <ul className="agents-blockers">
              {blockers.cronIds.map((id) => (
                <li key={id}>
                  Cron job <code>{id}</code>
                </li>
              ))}
              {blockers.triggerIds.map((id) => (
                <li key={id}>
                  Event trigger <code>{id}</code>
                </li>
              ))}
            </ul>
          </>
        ) : (
          <p>Its sessions and their messages are deleted with it. This cannot be undone.</p>
        )}
      </div>
      {error !== null && <ErrorBanner error={error} title="Could not delete the agent" />}
      <div className="dialog-actions">
        <button ref={cancel} type="button" className="button" onClick={close} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Deleting…' : blockers ? 'Delete all of them' : 'Delete agent'}
        </button>
      </div>
    </dialog>
  );
}
