/** One figure with its label and what it means; loading and failure shown in place. */
import type { ReactNode } from 'react';
import { errorDetails } from '../api/errors';

interface StatCardProps {
  label: string;
  value: ReactNode;
  hint?: ReactNode;
  loading?: boolean;
  error?: unknown;
  tone?: 'ok' | 'warn' | 'danger' | 'neutral';
}

export function StatCard({ label, value, hint, loading, error, tone = 'neutral' }: StatCardProps) {
  const failure = error ? errorDetails(error) : undefined;
  return (
    <div className={`stat stat-${tone}`}>
      <dt className="stat-label">{label}</dt>
      <dd className="stat-value" aria-busy={loading}>
        {loading ? '…' : failure ? <span className="stat-error">unavailable</span> : value}
      </dd>
      <dd className="stat-hint">
        {failure ? (
          <span>
            {failure.message}
            {failure.code !== undefined && <code> ({failure.code})</code>}
          </span>
        ) : (
          hint
        )}
      </dd>
    </div>
  );
}
