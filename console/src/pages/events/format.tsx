/** Small pieces the Event log and Sessions & runs share: JSON shown formatted (as text, never as markup), durations. */

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

/** A duration in milliseconds, in the unit that reads best. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
