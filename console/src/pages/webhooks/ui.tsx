/** Small pieces the Webhooks pages share: the sub-navigation, a delivery's status, precise times. */
import type { DeliveryStatus, WebhookDelivery } from '@combo/client';
import { Link, useLocation } from 'react-router';
import { StatusBadge, type Tone } from '../../components/StatusBadge';

const PAGES = [
  {
    to: '/webhooks',
    label: 'Subscriptions',
    matches: (path: string) => path === '/webhooks' || path.startsWith('/webhooks/subscriptions'),
  },
  { to: '/webhooks/deliveries', label: 'Delivery log', matches: (path: string) => path.startsWith('/webhooks/deliveries') },
  { to: '/webhooks/dead-letters', label: 'Dead-letter queue', matches: (path: string) => path.startsWith('/webhooks/dead-letters') },
  { to: '/webhooks/replays', label: 'Replay by time range', matches: (path: string) => path.startsWith('/webhooks/replays') },
];

/** The section's pages, the current one marked (aria-current). */
export function WebhooksNav() {
  const { pathname } = useLocation();
  const path = pathname.replace(/\/+$/, '') || '/';
  return (
    <nav className="wh-nav" aria-label="Webhooks pages">
      <ul>
        {PAGES.map((page) => {
          const current = page.matches(path);
          return (
            <li key={page.to}>
              <Link to={page.to} className={current ? 'wh-nav-link current' : 'wh-nav-link'} aria-current={current ? 'page' : undefined}>
                {page.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

const STATUS_TONE: Record<DeliveryStatus, Tone> = { pending: 'info', delivered: 'ok', dead: 'danger' };

export function DeliveryStatusBadge({ status }: { status: DeliveryStatus }) {
  return <StatusBadge tone={STATUS_TONE[status]}>{status}</StatusBadge>;
}

// The milliseconds inside the time, where the locale puts them (before AM/PM, say).
const preciseFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
});

/** A time to the millisecond (attempts a few hundred milliseconds apart must be told apart). */
export function PreciseTime({ value }: { value: string | null }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {preciseFormat.format(date)}
    </time>
  );
}

/** The last attempt's outcome in a few words ("500 after 12 ms", "no answer: ECONNREFUSED"). */
export function lastAttemptText(delivery: WebhookDelivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return 'not attempted yet';
  if (last.ok) return `${last.status_code ?? '—'} in ${last.latency_ms} ms`;
  if (last.status_code !== null) return `${last.status_code}${last.error ? `: ${last.error}` : ''}`;
  return last.error ?? 'no answer';
}

/** The deliveries of a page are polled while one of them is pending. */
export const anyPending = (deliveries: WebhookDelivery[]): boolean => deliveries.some((d) => d.status === 'pending');

/** A long URL cut for a table cell or an option (the page of its subscription shows it whole). */
export const shortUrl = (url: string): string => (url.length > 60 ? `${url.slice(0, 57)}…` : url);
