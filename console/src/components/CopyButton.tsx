/** Copies a value to the clipboard and says so (on the button and in a toast). */
import { useEffect, useState } from 'react';
import { useToast } from './Toast';

/** The Clipboard API where the page is a secure context; else a selected text area and the copy command. */
async function copyText(value: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(value);
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('the browser refused to copy');
  } finally {
    area.remove();
  }
}

interface CopyButtonProps {
  value: string;
  /** What is copied, completing the accessible name ("the new API key": "Copy the new API key"). */
  label: string;
}

export function CopyButton({ value, label }: CopyButtonProps) {
  const notify = useToast();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2_000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await copyText(value);
      setCopied(true);
      notify('Copied to the clipboard');
    } catch (error) {
      notify(`Could not copy: ${error instanceof Error ? error.message : String(error)}. Select the text and copy it.`, 'error');
    }
  };
  return (
    <button type="button" className="button button-small" onClick={() => void copy()}>
      {copied ? 'Copied' : 'Copy'}
      <span className="visually-hidden"> {label}</span>
    </button>
  );
}
