/**
 * A list's search by name, done by the API (`name`: a part of the name, ignoring letter case). The
 * text lives in the address (`?name=…`), so a narrowed list can be linked to and survives going back.
 */
import { useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState } from './EmptyState';
import { FilterBar } from './FilterBar';

/** The name searched for (undefined: none) and a way to change it. */
export function useNameParam(): [string | undefined, (name: string | undefined) => void] {
  const [params, setParams] = useSearchParams();
  const name = params.get('name')?.trim() || undefined;
  const setName = (next: string | undefined) =>
    setParams((current) => {
      const updated = new URLSearchParams(current);
      if (next?.trim()) updated.set('name', next.trim());
      else updated.delete('name');
      return updated;
    });
  return [name, setName];
}

export function NameFilter({
  label,
  name,
  onApply,
}: {
  label: string;
  name: string | undefined;
  onApply: (name: string | undefined) => void;
}) {
  const [draft, setDraft] = useState(name ?? '');
  const id = useId();
  return (
    <FilterBar label={label} active={name !== undefined} onApply={() => onApply(draft)} onClear={() => onApply(undefined)}>
      <div className="field">
        <label htmlFor={id}>Name contains</label>
        <input id={id} type="search" value={draft} maxLength={100} onChange={(event) => setDraft(event.target.value)} />
      </div>
    </FilterBar>
  );
}

/** The empty state of a list narrowed by name. */
export function NoNameMatch({ what, name }: { what: string; name: string }) {
  return (
    <EmptyState title={`No ${what} with "${name}" in the name`}>
      <p>Try another part of the name, or clear the search.</p>
    </EmptyState>
  );
}
