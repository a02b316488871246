/**
 * Times as people type them in the console (`datetime-local`: local time, to the minute) and as the
 * API takes them (ISO 8601, UTC).
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a `datetime-local` value; '' when absent or not a time. */
export function isoToLocal(iso: string | number | Date | undefined): string {
  if (iso === undefined || iso === '') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value as ISO 8601 UTC; undefined when empty or not a time. */
function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A range as typed: both ends as `datetime-local` values ('' for an open end). */
export interface LocalRange {
  since: string;
  until: string;
}

export const localRangeOf = (range: { since?: string; until?: string }): LocalRange => ({
  since: isoToLocal(range.since),
  until: isoToLocal(range.until),
});

/** The ends that are set, as the API's query takes them. */
export function isoRangeOf(range: LocalRange): { since?: string; until?: string } {
  const since = localToIso(range.since);
  const until = localToIso(range.until);
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
}
