/**
 * Asks before a destructive action: a modal <dialog> (focus kept inside, Escape cancels), Cancel
 * focused first. The action's failure is shown in the dialog, which stays open.
 */
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ErrorBanner } from './ErrorBanner';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The button that closes the dialog without acting (default "Cancel"; say what it keeps when "Cancel" would be ambiguous). */
  cancelLabel?: string;
  /** Runs the action; the dialog closes when it resolves. */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, cancelLabel = 'Cancel', onConfirm, onClose }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      setError(null);
      element.showModal();
      cancel.current?.focus();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open]);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId} className="dialog-body">
        {children}
      </div>
      {error !== null && <ErrorBanner error={error} title={`${confirmLabel} failed`} />}
      <div className="dialog-actions">
        <button ref={cancel} type="button" className="button" onClick={onClose} disabled={busy}>
          {cancelLabel}
        </button>
        <button type="button" className="button button-danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
