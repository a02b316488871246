/**
 * One delivery: where it goes, its status, and every attempt (time, HTTP status, latency, error),
 * asked again every second while it is pending. A dead delivery can be replayed from here.
 */
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useDelivery, useReplayDeadLetter, useSubscription } from '../../api/webhooks';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { useToast } from '../../components/Toast';
import { DeliveryStatusBadge, PreciseTime, WebhooksNav } from './ui';

/** The contract's schedule: five attempts in all. */
const MAX_ATTEMPTS = 5;

function SubscriptionLink({ subscriptionId }: { subscriptionId: string }) {
  const subscription = useSubscription(subscriptionId);
  return (
    <Link to={`/webhooks/subscriptions/${subscriptionId}`}>
      {subscription.data ? subscription.data.url : <code>{subscriptionId}</code>}
    </Link>
  );
}

export function DeliveryDetail() {
  const { deliveryId = '' } = useParams();
  const delivery = useDelivery(deliveryId);
  const replay = useReplayDeadLetter();
  const notify = useToast();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const d = delivery.data;

  return (
    <PageLayout
      title="Delivery"
      description={
        <>
          <code>{deliveryId}</code>: one event sent to one subscription, attempt by attempt.
        </>
      }
      actions={
        d?.status === 'dead' && (
          <button type="button" className="button button-primary" onClick={() => setConfirming(true)}>
            Replay this delivery
          </button>
        )
      }
    >
      <WebhooksNav />
      {delivery.error !== null && (
        <ErrorBanner error={delivery.error} title="Could not load the delivery" onRetry={() => void delivery.refetch()} />
      )}
      {delivery.isLoading && <p className="muted loading">Loading the delivery…</p>}
      {d && (
        <>
          <Section title="Summary">
            <p className="wh-delivery-status" role="status">
              <DeliveryStatusBadge status={d.status} />{' '}
              {d.status === 'pending' && (
                <span>
                  {d.attempt_count} of {MAX_ATTEMPTS} attempts so far; the next follows the retry schedule. This page is refreshed every
                  second while the delivery is pending.
                </span>
              )}
              {d.status === 'delivered' && (
                <span>
                  Delivered after {d.attempt_count} {d.attempt_count === 1 ? 'attempt' : 'attempts'}.
                </span>
              )}
              {d.status === 'dead' && (
                <span>
                  All {d.attempt_count} attempts failed: the delivery is in the <Link to="/webhooks/dead-letters">dead-letter queue</Link>.
                </span>
              )}
            </p>
            <dl className="wh-facts">
              <div>
                <dt>Event</dt>
                <dd>
                  <code>{d.event}</code> <span className="muted">(</span>
                  <code>{d.event_id}</code>
                  <span className="muted">)</span>
                </dd>
              </div>
              <div>
                <dt>Subscription</dt>
                <dd>
                  <SubscriptionLink subscriptionId={d.subscription_id} />
                </dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <PreciseTime value={d.created_at} />
                </dd>
              </div>
              <div>
                <dt>{d.status === 'dead' ? 'Dead since' : 'Delivered'}</dt>
                <dd>
                  <PreciseTime value={d.status === 'dead' ? d.dead_at : d.delivered_at} />
                </dd>
              </div>
              {d.replay_of && (
                <div>
                  <dt>Replay of</dt>
                  <dd>
                    <Link to={`/webhooks/deliveries/${d.replay_of}`}>
                      <code>{d.replay_of}</code>
                    </Link>
                  </dd>
                </div>
              )}
              {d.replay_id && (
                <div>
                  <dt>Made by replay</dt>
                  <dd>
                    <Link to={`/webhooks/replays/${d.replay_id}`}>
                      <code>{d.replay_id}</code>
                    </Link>
                  </dd>
                </div>
              )}
              <div>
                <dt>Workflow</dt>
                <dd>
                  <code>{d.workflow_id}</code>
                </dd>
              </div>
            </dl>
          </Section>
          <Section title="Attempts">
            {d.attempts.length === 0 ? (
              <p className="muted">No attempt yet: the first starts at once.</p>
            ) : (
              <div className="table-scroll">
                <table className="table" aria-busy={delivery.isFetching}>
                  <caption className="visually-hidden">Attempts of delivery {d.delivery_id}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Attempt</th>
                      <th scope="col">Time</th>
                      <th scope="col">Result</th>
                      <th scope="col" className="cell-numeric">
                        HTTP status
                      </th>
                      <th scope="col" className="cell-numeric">
                        Latency
                      </th>
                      <th scope="col">Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.attempts.map((attempt) => (
                      <tr key={attempt.attempt}>
                        <td>{attempt.attempt}</td>
                        <td>
                          <PreciseTime value={attempt.at} />
                        </td>
                        <td>
                          {attempt.ok ? <StatusBadge tone="ok">succeeded</StatusBadge> : <StatusBadge tone="danger">failed</StatusBadge>}
                        </td>
                        <td className="cell-numeric">{attempt.status_code ?? <span className="muted">no answer</span>}</td>
                        <td className="cell-numeric">{attempt.latency_ms} ms</td>
                        <td className="wh-error-cell">{attempt.error ?? <span className="muted">—</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Section>
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title="Replay this delivery?"
        confirmLabel="Replay"
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          const fresh = await replay.mutateAsync(deliveryId);
          notify(`Replaying ${deliveryId} as ${fresh.delivery_id}`);
          void navigate(`/webhooks/deliveries/${fresh.delivery_id}`);
        }}
      >
        <p>
          The event <code>{d?.event_id}</code> is sent again to the subscription's current URL, with a fresh schedule of {MAX_ATTEMPTS}{' '}
          attempts. Consumers receive the same event id, so they can tell it is a repeat.
        </p>
      </ConfirmDialog>
    </PageLayout>
  );
}
