/** A secret the API answers once (a new API key, a signing secret): shown with copy until dismissed, never again. */
import { useEffect, useRef } from 'react';
import { CopyButton } from './CopyButton';

interface SecretPanelProps {
  title: string;
  secret: string;
  /** What the secret is for, what to do with it. */
  note?: string;
  onDone: () => void;
}

export function SecretPanel({ title, secret, note, onDone }: SecretPanelProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="secret-panel" aria-labelledby="secret-panel-title">
      <h2 id="secret-panel-title" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <p className="secret-warning">
        <strong>Shown once.</strong> Copy it now and keep it somewhere safe: the service stores only a hash of it and cannot show it again.
      </p>
      {note && <p className="muted">{note}</p>}
      <div className="secret-value">
        <code data-testid="secret-value">{secret}</code>
        <CopyButton value={secret} label={`the ${title[0]!.toLowerCase()}${title.slice(1)}`} />
      </div>
      <button type="button" className="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
