/**
 * The dead-letter queue: deliveries whose five attempts all failed, paged on the server; by default
 * those not replayed yet (`?show=replayed` or `?show=all` for the others). Select one or many,
 * confirm, and each is replayed (a fresh delivery of the same event to its subscription's current
 * URL); each replay's result is shown and followed until it is delivered or dead again.
 */
import type { WebhookDelivery } from '@combo/client';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorDetails } from '../../api/errors';
import { type DeadLetterView, useDeadLetters, useDelivery, useReplayDeadLetter } from '../../api/webhooks';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageLayout, Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { useSubscriptionUrls } from './Deliveries';
import { DeliveryStatusBadge, lastAttemptText, shortUrl, WebhooksNav } from './ui';

type ReplayResult = { deadId: string; event: string } & ({ ok: true; deliveryId: string } | { ok: false; error: unknown });

/** A replay's delivery, followed while it is pending. */
function ReplayOutcome({ deliveryId }: { deliveryId: string }) {
  const delivery = useDelivery(deliveryId);
  return (
    <>
      <Link to={`/webhooks/deliveries/${deliveryId}`}>
        <code>{deliveryId}</code>
      </Link>{' '}
      {delivery.data ? <DeliveryStatusBadge status={delivery.data.status} /> : <span className="muted">…</span>}
      {delivery.data && delivery.data.attempt_count > 0 && (
        <span className="muted">
          {' '}
          {delivery.data.attempt_count} {delivery.data.attempt_count === 1 ? 'attempt' : 'attempts'}, last: {lastAttemptText(delivery.data)}
        </span>
      )}
    </>
  );
}

function ReplayResults({ results, onClear }: { results: ReplayResult[]; onClear: () => void }) {
  const replayed = results.filter((r) => r.ok).length;
  return (
    <Section
      title="Replay results"
      actions={
        <button type="button" className="button button-small button-quiet" onClick={onClear}>
          Clear results
        </button>
      }
    >
      <p role="status">
        {replayed} of {results.length} replayed{replayed < results.length ? `; ${results.length - replayed} refused (below)` : ''}. Statuses
        are followed while pending.
      </p>
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Replay results</caption>
          <thead>
            <tr>
              <th scope="col">Dead letter</th>
              <th scope="col">Event</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {results.map((result) => (
              <tr key={result.deadId}>
                <td>
                  <Link to={`/webhooks/deliveries/${result.deadId}`}>
                    <code>{result.deadId}</code>
                  </Link>
                </td>
                <td>
                  <code>{result.event}</code>
                </td>
                <td>
                  {result.ok ? (
                    <ReplayOutcome deliveryId={result.deliveryId} />
                  ) : (
                    <span className="wh-replay-error">
                      <StatusBadge tone="danger">refused</StatusBadge> {errorDetails(result.error).message}
                      {errorDetails(result.error).code !== undefined && <code> ({errorDetails(result.error).code})</code>}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

const VIEWS: { view: DeadLetterView; label: string }[] = [
  { view: 'to-handle', label: 'Not replayed yet' },
  { view: 'replayed', label: 'Replayed' },
  { view: 'all', label: 'All' },
];

const viewOf = (params: URLSearchParams): DeadLetterView => {
  const show = params.get('show');
  return show === 'replayed' || show === 'all' ? show : 'to-handle';
};

/**
 * The view shown and a way to pick another. It is kept in the address (so that it can be linked to),
 * but the router applies an address change in a React transition, after the click's event is over:
 * a radio controlled by the address alone is set back by React to the old view until that render
 * commits (later still while a list refresh interrupts it), and the click looks lost. The pick is
 * therefore shown at once, and handed back to the address as soon as the address has it.
 */
function useView(): [DeadLetterView, (view: DeadLetterView) => void] {
  const [params, setParams] = useSearchParams();
  const inAddress = viewOf(params);
  const [picked, setPicked] = useState<DeadLetterView | null>(null);
  if (picked !== null && picked === inAddress) setPicked(null);
  const pick = (next: DeadLetterView) => {
    setPicked(next);
    setParams(next === 'to-handle' ? {} : { show: next });
  };
  return [picked ?? inAddress, pick];
}

/** Which dead letters the table lists. */
function ViewPicker({ view, onChange }: { view: DeadLetterView; onChange: (view: DeadLetterView) => void }) {
  return (
    <fieldset className="wh-view">
      <legend>Show</legend>
      {VIEWS.map((v) => (
        <label key={v.view} className="wh-check">
          <input type="radio" name="dead-letter-view" checked={view === v.view} onChange={() => onChange(v.view)} />
          <span>{v.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

export function DeadLetters() {
  const [view, pickView] = useView();
  const deadLetters = useDeadLetters(view);
  const replay = useReplayDeadLetter();
  const urls = useSubscriptionUrls();
  const notify = useToast();
  // Selected dead letters by id (kept across pages, so a selection can span them).
  const [selected, setSelected] = useState<Map<string, WebhookDelivery>>(new Map());
  const [confirming, setConfirming] = useState<WebhookDelivery[] | null>(null);
  const [results, setResults] = useState<ReplayResult[]>([]);

  const toggle = (delivery: WebhookDelivery, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      if (on) next.set(delivery.delivery_id, delivery);
      else next.delete(delivery.delivery_id);
      return next;
    });
  const pageIds = deadLetters.items.map((d) => d.delivery_id);
  const wholePage = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const selectPage = (on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      for (const d of deadLetters.items) {
        if (on) next.set(d.delivery_id, d);
        else next.delete(d.delivery_id);
      }
      return next;
    });

  const replayAll = async (deliveries: WebhookDelivery[]) => {
    const outcomes: ReplayResult[] = [];
    // One after the other: each answer is its own result, and the API's rate limit is spared.
    for (const d of deliveries) {
      try {
        const fresh = await replay.mutateAsync(d.delivery_id);
        outcomes.push({ deadId: d.delivery_id, event: d.event, ok: true, deliveryId: fresh.delivery_id });
      } catch (error) {
        outcomes.push({ deadId: d.delivery_id, event: d.event, ok: false, error });
      }
    }
    setResults(outcomes);
    setSelected(new Map());
    const ok = outcomes.filter((o) => o.ok).length;
    notify(`${ok} of ${outcomes.length} dead letters replayed`, ok === outcomes.length ? 'success' : 'error');
  };

  const columns: Column<WebhookDelivery>[] = [
    {
      key: 'select',
      header: 'Select',
      render: (d) => (
        <input
          type="checkbox"
          className="wh-select"
          checked={selected.has(d.delivery_id)}
          onChange={(event) => toggle(d, event.target.checked)}
          aria-label={`Select ${d.delivery_id} (${d.event})`}
        />
      ),
    },
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
    // Every letter of the default view is still to replay: the column speaks in the others.
    ...(view === 'to-handle'
      ? []
      : [
          {
            key: 'replayed',
            header: 'Replayed as',
            render: (d: WebhookDelivery) =>
              d.replayed_by ? (
                <Link to={`/webhooks/deliveries/${d.replayed_by}`}>
                  <code>{d.replayed_by}</code>
                </Link>
              ) : (
                <span className="muted">not yet</span>
              ),
          },
        ]),
    {
      key: 'subscription',
      header: 'Subscription',
      render: (d) => (
        <Link to={`/webhooks/subscriptions/${d.subscription_id}`} title={d.subscription_id}>
          {urls.has(d.subscription_id) ? shortUrl(urls.get(d.subscription_id)!) : <code>{d.subscription_id}</code>}
        </Link>
      ),
    },
    { key: 'attempts', header: 'Attempts', kind: 'numeric', render: (d) => d.attempt_count },
    { key: 'last', header: 'Last error', render: (d) => <span className="wh-last-attempt">{lastAttemptText(d)}</span> },
    { key: 'dead', header: 'Dead since', render: (d) => <Time value={d.dead_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (d) => (
        <button type="button" className="button button-small" onClick={() => setConfirming([d])} aria-label={`Replay ${d.delivery_id}`}>
          Replay
        </button>
      ),
    },
  ];

  const count = confirming?.length ?? 0;
  return (
    <PageLayout
      title="Dead-letter queue"
      description="Deliveries whose five attempts all failed. Fix the receiver (or the subscription's URL), then replay them: each is a fresh delivery of the same event, with the same event id."
    >
      <WebhooksNav />
      {results.length > 0 && <ReplayResults results={results} onClear={() => setResults([])} />}
      <Section title="Dead letters">
        <ViewPicker view={view} onChange={pickView} />
        {deadLetters.items.length > 0 && (
          <div className="wh-bulk" role="group" aria-label="Selection">
            <label className="wh-check">
              <input type="checkbox" checked={wholePage} onChange={(event) => selectPage(event.target.checked)} />
              <span>Select every dead letter on this page</span>
            </label>
            <span className="muted" aria-live="polite">
              {selected.size} selected
            </span>
            <button
              type="button"
              className="button button-primary"
              disabled={selected.size === 0}
              onClick={() => setConfirming([...selected.values()])}
            >
              Replay selected
            </button>
            {selected.size > 0 && (
              <button type="button" className="button button-small button-quiet" onClick={() => setSelected(new Map())}>
                Clear selection
              </button>
            )}
          </div>
        )}
        <DataTable
          caption="Dead letters"
          columns={columns}
          list={deadLetters}
          rowKey={(d) => d.delivery_id}
          empty={
            view === 'to-handle' ? (
              <EmptyState title="Nothing to replay">
                <p>
                  Every delivery got through, is still being tried, or was replayed. Deliveries that fail five times land here; see them all
                  in the <Link to="/webhooks/deliveries">delivery log</Link>.
                </p>
              </EmptyState>
            ) : (
              <EmptyState title={view === 'replayed' ? 'No dead letter was replayed yet' : 'The dead-letter queue is empty'}>
                <p>
                  Deliveries that fail five times land here; see them all in the <Link to="/webhooks/deliveries">delivery log</Link>.
                </p>
              </EmptyState>
            )
          }
        />
      </Section>
      <ConfirmDialog
        open={confirming !== null}
        title={count === 1 ? 'Replay this dead letter?' : `Replay ${count} dead letters?`}
        confirmLabel={count === 1 ? 'Replay' : `Replay ${count}`}
        onClose={() => setConfirming(null)}
        onConfirm={() => replayAll(confirming ?? [])}
      >
        <p>
          {count === 1 ? 'Its event is' : 'Their events are'} sent again to {count === 1 ? "its subscription's" : "their subscriptions'"}{' '}
          current URL, with a fresh schedule of five attempts. Receivers get the same event ids and can tell the repeats.
        </p>
        <ul className="wh-confirm-list">
          {confirming?.slice(0, 10).map((d) => (
            <li key={d.delivery_id}>
              <code>{d.delivery_id}</code> <code>{d.event}</code>
            </li>
          ))}
          {count > 10 && <li className="muted">and {count - 10} more</li>}
        </ul>
      </ConfirmDialog>
    </PageLayout>
  );
}
