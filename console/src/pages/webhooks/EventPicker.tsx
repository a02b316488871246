/** The event names a subscription (or a replay) asks for: a group of checkboxes, each with what it means. */
import type { EventName } from '@combo/client';
import { useId } from 'react';
import { describeEvent, EVENT_NAMES } from './events';

interface EventPickerProps {
  legend: string;
  value: EventName[];
  onChange: (events: EventName[]) => void;
  /** What the choice means, under the legend. */
  hint?: string;
  /** The API named this field in its validation error. */
  invalid?: boolean;
}

export function EventPicker({ legend, value, onChange, hint, invalid = false }: EventPickerProps) {
  const hintId = useId();
  const chosen = new Set(value);
  const toggle = (name: EventName, on: boolean) => onChange(EVENT_NAMES.filter((n) => (n === name ? on : chosen.has(n))));
  return (
    <fieldset className={invalid ? 'wh-events wh-events-invalid' : 'wh-events'} aria-describedby={hint ? hintId : undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p id={hintId} className="help">
          {hint}
        </p>
      )}
      <div className="wh-events-actions">
        <button type="button" className="button button-small" onClick={() => onChange([...EVENT_NAMES])}>
          Select all events
        </button>
        <button type="button" className="button button-small button-quiet" onClick={() => onChange([])} disabled={value.length === 0}>
          Clear events
        </button>
      </div>
      <ul className="wh-events-list">
        {EVENT_NAMES.map((name) => (
          <li key={name}>
            <label className="wh-check">
              <input
                type="checkbox"
                checked={chosen.has(name)}
                onChange={(event) => toggle(name, event.target.checked)}
                aria-invalid={invalid || undefined}
              />
              <span>
                <code>{name}</code> <span className="muted">— {describeEvent(name)}</span>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
