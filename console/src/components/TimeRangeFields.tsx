/**
 * The two ends of a time range as labelled `datetime-local` inputs; the end the API refused is marked
 * invalid. Each end bounds the other (`min` / `max`), so the form's own check refuses an end before
 * its start before anything is asked.
 */
import { useId } from 'react';
import type { LocalRange } from '../local-time';

interface TimeRangeFieldsProps {
  value: LocalRange;
  onChange: (range: LocalRange) => void;
  labels?: { since: string; until: string };
  required?: boolean;
  /** The field the API refused (`since`, `until`, or another). */
  invalid?: string;
}

export function TimeRangeFields({ value, onChange, labels = { since: 'From', until: 'Until' }, required, invalid }: TimeRangeFieldsProps) {
  const ids = { since: useId(), until: useId() };
  return (
    <>
      {(['since', 'until'] as const).map((end) => (
        <div className="field" key={end}>
          <label htmlFor={ids[end]}>{labels[end]}</label>
          <input
            id={ids[end]}
            type="datetime-local"
            value={value[end]}
            onChange={(e) => onChange({ ...value, [end]: e.target.value })}
            required={required}
            min={end === 'until' && value.since ? value.since : undefined}
            max={end === 'since' && value.until ? value.until : undefined}
            aria-invalid={invalid === end}
          />
        </div>
      ))}
    </>
  );
}
