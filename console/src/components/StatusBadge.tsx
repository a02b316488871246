/** A short status word with its tone (never colour alone: the word says it). */
import type { ReactNode } from 'react';

export type Tone = 'ok' | 'warn' | 'danger' | 'neutral' | 'info';

export function StatusBadge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
