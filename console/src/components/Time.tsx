/** A timestamp in local time, with the exact UTC time on hover and in the markup. */
const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function Time({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {format.format(date)}
    </time>
  );
}

export const formatNumber = (value: number): string => new Intl.NumberFormat().format(value);
