/**
 * The delivery log: every delivery of the tenant (or of one subscription) with its status and last
 * attempt, newest first, paged and filtered on the server (status, subscription, event name, event
 * id, creation time), kept
 * fresh while some delivery on the page is pending.
 */
import { type DeliveryStatus, DeliveryStatusValues, EventNameValues, type WebhookDelivery } from '@combo/client';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { PagedList } from '../../api/paging';
import { type DeliveryFilter, useDeliveries, useSubscriptionChoices } from '../../api/webhooks';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FilterBar } from '../../components/FilterBar';
import { PageLayout, Section } from '../../components/PageLayout';
import { Time } from '../../components/Time';
import { TimeRangeFields } from '../../components/TimeRangeFields';
import { isoRangeOf, localRangeOf } from '../../local-time';
import { anyPending, DeliveryStatusBadge, lastAttemptText, shortUrl, WebhooksNav } from './ui';

const LIST_REFRESH_MS = 3_000;

/** Asks the list again every few seconds while one of its deliveries is pending. */
function useRefreshWhilePending(list: PagedList<WebhookDelivery>): boolean {
  const pending = anyPending(list.items);
  const { refetch } = list;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(refetch, LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending, refetch]);
  return pending;
}

/** The subscriptions' URLs by id (the first 100), to show where each delivery goes. */
export function useSubscriptionUrls(): Map<string, string> {
  const choices = useSubscriptionChoices();
  return new Map((choices.data?.items ?? []).map((s) => [s.subscription_id, s.url]));
}

function deliveryColumns(urls: Map<string, string>, options: { subscription?: boolean } = {}): Column<WebhookDelivery>[] {
  return [
    {
      key: 'delivery',
      header: 'Delivery',
      render: (d) => (
        <Link to={`/webhooks/deliveries/${d.delivery_id}`}>
          <code>{d.delivery_id}</code>
        </Link>
      ),
    },
    { key: 'event', header: 'Event', render: (d) => <code>{d.event}</code> },
    ...(options.subscription === false
      ? []
      : [
          {
            key: 'subscription',
            header: 'Subscription',
            render: (d: WebhookDelivery) => (
              <Link to={`/webhooks/subscriptions/${d.subscription_id}`} title={d.subscription_id}>
                {urls.has(d.subscription_id) ? shortUrl(urls.get(d.subscription_id)!) : <code>{d.subscription_id}</code>}
              </Link>
            ),
          },
        ]),
    {
      key: 'status',
      header: 'Status',
      render: (d) => (
        <>
          <DeliveryStatusBadge status={d.status} />
          {d.replay_of && <span className="muted"> replay</span>}
        </>
      ),
    },
    { key: 'attempts', header: 'Attempts', kind: 'numeric', render: (d) => d.attempt_count },
    { key: 'last', header: 'Last attempt', render: (d) => <span className="wh-last-attempt">{lastAttemptText(d)}</span> },
    { key: 'created', header: 'Created', render: (d) => <Time value={d.created_at} /> },
  ];
}

/** What deliveries are of: the recorded events, and the test event a subscription can be sent. */
const DELIVERED_EVENTS: readonly string[] = [...EventNameValues, 'webhook.test'];

/** Status, event, time (and optionally subscription) filters of a delivery list, applied on the server. */
function DeliveryFilters({
  filter,
  onApply,
  withSubscription,
}: {
  filter: DeliveryFilter;
  onApply: (filter: DeliveryFilter) => void;
  withSubscription: boolean;
}) {
  const [draft, setDraft] = useState(filter);
  const [range, setRange] = useState(localRangeOf(filter));
  const choices = useSubscriptionChoices();
  const ids = { status: useId(), subscription: useId(), eventName: useId(), event: useId() };
  const clean = (f: DeliveryFilter): DeliveryFilter => ({
    ...(f.status ? { status: f.status } : {}),
    ...(f.subscription_id ? { subscription_id: f.subscription_id } : {}),
    ...(f.event ? { event: f.event } : {}),
    ...(f.event_id?.trim() ? { event_id: f.event_id.trim() } : {}),
    ...(f.since ? { since: f.since } : {}),
    ...(f.until ? { until: f.until } : {}),
  });
  const active = Object.keys(clean(filter)).filter((k) => withSubscription || k !== 'subscription_id').length > 0;
  return (
    <FilterBar
      label="deliveries"
      active={active}
      onApply={() => onApply(clean({ ...draft, since: undefined, until: undefined, ...isoRangeOf(range) }))}
      onClear={() => onApply(withSubscription ? {} : clean({ subscription_id: filter.subscription_id }))}
    >
      <div className="field">
        <label htmlFor={ids.status}>Status</label>
        <select
          id={ids.status}
          value={draft.status ?? ''}
          onChange={(event) => setDraft({ ...draft, status: (event.target.value || undefined) as DeliveryStatus | undefined })}
        >
          <option value="">Any status</option>
          {DeliveryStatusValues.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      {withSubscription && (
        <div className="field">
          <label htmlFor={ids.subscription}>Subscription</label>
          <select
            id={ids.subscription}
            value={draft.subscription_id ?? ''}
            onChange={(event) => setDraft({ ...draft, subscription_id: event.target.value || undefined })}
          >
            <option value="">Every subscription</option>
            {draft.subscription_id && !choices.data?.items.some((s) => s.subscription_id === draft.subscription_id) && (
              <option value={draft.subscription_id}>{draft.subscription_id}</option>
            )}
            {(choices.data?.items ?? []).map((s) => (
              <option key={s.subscription_id} value={s.subscription_id}>
                {shortUrl(s.url)} ({s.subscription_id})
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="field">
        <label htmlFor={ids.eventName}>Event</label>
        <select
          id={ids.eventName}
          value={draft.event ?? ''}
          onChange={(event) => setDraft({ ...draft, event: event.target.value || undefined })}
        >
          <option value="">Any event</option>
          {DELIVERED_EVENTS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.event}>Event id</label>
        <input
          id={ids.event}
          value={draft.event_id ?? ''}
          onChange={(event) => setDraft({ ...draft, event_id: event.target.value })}
          placeholder="evt_…"
        />
      </div>
      <TimeRangeFields value={range} onChange={setRange} labels={{ since: 'Created from', until: 'Created before' }} />
    </FilterBar>
  );
}

/** A paged list of deliveries with its filters, refreshed while some are pending. */
export function DeliveryList({
  filter,
  onFilter,
  withSubscription,
  empty,
}: {
  filter: DeliveryFilter;
  onFilter: (filter: DeliveryFilter) => void;
  withSubscription: boolean;
  empty: ReactNode;
}) {
  const deliveries = useDeliveries(filter);
  const urls = useSubscriptionUrls();
  const pending = useRefreshWhilePending(deliveries);
  return (
    <>
      {/* Keyed by the filter in force: the draft starts from it again when it changes (back, a link). */}
      <DeliveryFilters key={JSON.stringify(filter)} filter={filter} onApply={onFilter} withSubscription={withSubscription} />
      {pending && <p className="muted wh-refresh-note">Some deliveries are pending: the list is refreshed every few seconds.</p>}
      <DataTable
        caption="Deliveries"
        columns={deliveryColumns(urls, { subscription: withSubscription })}
        list={deliveries}
        rowKey={(d) => d.delivery_id}
        empty={empty}
      />
    </>
  );
}

const filterFromParams = (params: URLSearchParams): DeliveryFilter => {
  const status = params.get('status');
  const given = (name: 'subscription_id' | 'event' | 'event_id' | 'since' | 'until') =>
    params.get(name) ? { [name]: params.get(name)! } : {};
  return {
    ...(status && (DeliveryStatusValues as readonly string[]).includes(status) ? { status: status as DeliveryStatus } : {}),
    ...given('subscription_id'),
    ...given('event'),
    ...given('event_id'),
    ...given('since'),
    ...given('until'),
  };
};

export function DeliveryLog() {
  // The filters live in the address, so a filtered log can be linked to (and survives going back).
  const [params, setParams] = useSearchParams();
  const filter = filterFromParams(params);
  const filtered = Object.keys(filter).length > 0;
  return (
    <PageLayout
      title="Delivery log"
      description="Every delivery of an event to a subscription, newest first, with its attempts. Open one to see each attempt's time, HTTP status, latency and error."
    >
      <WebhooksNav />
      <Section title="Deliveries">
        <DeliveryList
          filter={filter}
          onFilter={(next) => setParams(new URLSearchParams(Object.entries(next) as Array<[string, string]>))}
          withSubscription
          empty={
            <EmptyState title={filtered ? 'No delivery matches these filters' : 'No deliveries yet'}>
              <p>
                {filtered ? (
                  'Clear the filters to see every delivery.'
                ) : (
                  <>
                    Deliveries appear when a subscribed event happens. <Link to="/webhooks">Create a subscription</Link> and send it a test
                    event.
                  </>
                )}
              </p>
            </EmptyState>
          }
        />
      </Section>
    </PageLayout>
  );
}
