/** A secret the API answers once (a new API key, a signing secret): shown with copy until dismissed, never again. */
import { type ReactNode, useEffect, useRef } from 'react';
import { CopyButton } from './CopyButton';

interface SecretPanelProps {
  title: string;
  secret: string;
  /** What the secret is for, what to do with it. */
  note?: string;
  /** How it is kept, after "Shown once." (default: only a hash of it is stored). */
  warning?: string;
  /** More that is shown once with it (where to use it, a ready-made example holding it). */
  children?: ReactNode;
  onDone: () => void;
}

export function SecretPanel({ title, secret, note, warning, children, onDone }: SecretPanelProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="secret-panel" aria-labelledby="secret-panel-title">
      <h2 id="secret-panel-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p className="secret-warning">
        <strong>Shown once.</strong>{' '}
        {warning ?? 'Copy it now and keep it somewhere safe: the service stores only a hash of it and cannot show it again.'}
      </p>
      {note && <p className="muted">{note}</p>}
      <div className="secret-value">
        <code data-testid="secret-value">{secret}</code>
        <CopyButton value={secret} label={`the ${title[0]!.toLowerCase()}${title.slice(1)}`} />
      </div>
      {children}
      <button type="button" className="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
