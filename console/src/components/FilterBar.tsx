/**
 * Filters of a list, applied on the server: labelled controls in a search landmark; "Apply" (or
 * Enter) sends them, "Clear" empties them.
 */
import type { FormEvent, ReactNode } from 'react';

interface FilterBarProps {
  /** What is filtered ("API keys"). */
  label: string;
  children: ReactNode;
  onApply: () => void;
  onClear: () => void;
  /** Some filter is in force (Clear is offered). */
  active: boolean;
}

export function FilterBar({ label, children, onApply, onClear, active }: FilterBarProps) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply();
  };
  return (
    <form className="filter-bar" role="search" aria-label={`Filter ${label}`} onSubmit={submit}>
      {children}
      <div className="filter-actions">
        <button type="submit" className="button button-small">
          Apply
        </button>
        {active && (
          <button type="button" className="button button-small button-quiet" onClick={onClear}>
            Clear
          </button>
        )}
      </div>
    </form>
  );
}
