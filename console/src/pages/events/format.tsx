/**
 * Small pieces the Event log and Sessions & runs share: JSON shown formatted (as text, never as
 * markup), and the time-range inputs (`datetime-local`, local time) as the API's ISO 8601.
 */

/** A value as indented JSON, wrapped (no scrolling box) and as text only. */
export function JsonView({ value }: { value: unknown }) {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return <pre className="evt-json">{text}</pre>;
}

/** A `datetime-local` value (local time) as ISO 8601 UTC; undefined when empty or not a time. */
export function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO 8601 time as a `datetime-local` value (local time, to the minute); '' when absent. */
export function isoToLocal(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A duration in milliseconds, in the unit that reads best. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
