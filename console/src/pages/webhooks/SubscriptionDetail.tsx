/**
 * One subscription: edit it (URL, events, description, enabled, signing), rotate its secret (with a grace
 * during which both secrets sign; the new one shown once), send it a test event (then watch that
 * delivery), delete it after confirming, and its deliveries.
 */
import type { EventName, WebhookSigning, WebhookSubscription, WebhookSubscriptionWithSecret } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  type DeliveryFilter,
  useDeleteSubscription,
  useRotateSecret,
  useSubscription,
  useTestSubscription,
  useUpdateSubscription,
} from '../../api/webhooks';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { SecretPanel } from '../../components/SecretPanel';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { DeliveryList } from './Deliveries';
import { EventPicker } from './EventPicker';
import { SigningPicker, signingLabel } from './SigningPicker';
import { fieldName } from './Subscriptions';
import { WebhooksNav } from './ui';

function EditSubscriptionForm({ subscription }: { subscription: WebhookSubscription }) {
  const update = useUpdateSubscription(subscription.subscription_id);
  const notify = useToast();
  const [url, setUrl] = useState(subscription.url);
  const [events, setEvents] = useState<EventName[]>(subscription.events);
  const [description, setDescription] = useState(subscription.description);
  const [enabled, setEnabled] = useState(subscription.enabled);
  const [signing, setSigning] = useState<WebhookSigning>(subscription.signing);
  const ids = { url: useId(), description: useId(), enabled: useId() };
  const invalid = fieldName(update.error);
  const changed =
    url !== subscription.url ||
    description !== subscription.description ||
    enabled !== subscription.enabled ||
    signing !== subscription.signing ||
    events.join() !== subscription.events.join();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The saved subscription re-keys this form (its updated_at): the promise, unlike mutate's callbacks, outlives it.
    update
      .mutateAsync({ url: url.trim(), events, description, enabled, signing })
      .then((saved) => notify(`Subscription ${saved.subscription_id} saved`))
      .catch(() => undefined); // shown from update.error
  };

  return (
    <form className="wh-form" onSubmit={submit} aria-label="Edit the subscription">
      <div className="form-row">
        <div className="field wh-field-wide">
          <label htmlFor={ids.url}>URL</label>
          <input
            id={ids.url}
            type="url"
            value={url}
            onChange={(event) => setUrl(event.target.value)}
            required
            maxLength={2000}
            aria-invalid={invalid === 'url'}
          />
        </div>
        <div className="field wh-field-wide">
          <label htmlFor={ids.description}>Description</label>
          <input
            id={ids.description}
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            maxLength={500}
            aria-invalid={invalid === 'description'}
          />
        </div>
      </div>
      <label className="wh-check wh-enabled" htmlFor={ids.enabled}>
        <input id={ids.enabled} type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        <span>
          Enabled{' '}
          <span className="muted">
            — while disabled, attempts fail with "subscription disabled" (re-enable it within the schedule and delivery goes on)
          </span>
        </span>
      </label>
      <div className="form-row">
        <SigningPicker value={signing} onChange={setSigning} invalid={invalid === 'signing'} />
      </div>
      <EventPicker legend="Events" value={events} onChange={setEvents} invalid={invalid === 'events'} />
      {update.error !== null && <ErrorBanner error={update.error} title="Could not save the subscription" />}
      <button type="submit" className="button button-primary" disabled={update.isPending || !changed}>
        {update.isPending ? 'Saving…' : 'Save changes'}
      </button>
    </form>
  );
}

const GRACES = [
  { seconds: 0, label: 'None: the old secret stops at once' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 604_800, label: '7 days (the longest)' },
];

function RotateSecret({
  subscription,
  onRotated,
}: {
  subscription: WebhookSubscription;
  onRotated: (s: WebhookSubscriptionWithSecret) => void;
}) {
  const rotate = useRotateSecret(subscription.subscription_id);
  const [grace, setGrace] = useState(3_600);
  const [confirming, setConfirming] = useState(false);
  const graceId = useId();
  const graceLabel = GRACES.find((g) => g.seconds === grace)?.label ?? `${grace} s`;
  return (
    <>
      <dl className="wh-facts">
        <div>
          <dt>Current secret</dt>
          <dd>
            <code>…{subscription.secret_last4}</code>
          </dd>
        </div>
        <div>
          <dt>Replaced secret signs until</dt>
          <dd>
            <Time value={subscription.previous_secret_valid_until} empty="— (no grace in progress)" />
          </dd>
        </div>
      </dl>
      <form
        className="form-row"
        aria-label="Rotate the signing secret"
        onSubmit={(event) => {
          event.preventDefault();
          setConfirming(true);
        }}
      >
        <div className="field">
          <label htmlFor={graceId}>Grace</label>
          <select
            id={graceId}
            value={grace}
            onChange={(event) => setGrace(Number(event.target.value))}
            aria-invalid={fieldName(rotate.error) === 'grace_seconds'}
          >
            {GRACES.map((g) => (
              <option key={g.seconds} value={g.seconds}>
                {g.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-action">
          <button type="submit" className="button">
            Rotate secret
          </button>
        </div>
      </form>
      <p className="help">
        During the grace, deliveries carry both signatures (<code>sha256=&lt;new&gt;,sha256=&lt;old&gt;</code>
        {subscription.signing === 'standard_webhooks' && (
          <>
            , and <code>webhook-signature: v1,&lt;new&gt; v1,&lt;old&gt;</code>
          </>
        )}
        ) so the receiver can switch over without refusing one.
      </p>
      <ConfirmDialog
        open={confirming}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onClose={() => setConfirming(false)}
        onConfirm={async () => onRotated(await rotate.mutateAsync({ grace_seconds: grace }))}
      >
        <p>
          A new secret signs every attempt starting 2 seconds from now. Grace: <strong>{graceLabel}</strong>
          {grace === 0
            ? ': receivers still checking the old secret refuse deliveries from then on.'
            : ', then the old secret stops signing.'}
        </p>
        <p>The new secret is shown once.</p>
      </ConfirmDialog>
    </>
  );
}

export function SubscriptionDetail() {
  const { subscriptionId = '' } = useParams();
  const subscription = useSubscription(subscriptionId);
  const test = useTestSubscription(subscriptionId);
  const remove = useDeleteSubscription();
  const notify = useToast();
  const navigate = useNavigate();
  const [rotated, setRotated] = useState<WebhookSubscriptionWithSecret | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const s = subscription.data;

  const sendTest = () =>
    test.mutate(undefined, {
      onSuccess: (delivery) => {
        notify(`Test event sent: delivery ${delivery.delivery_id}`);
        void navigate(`/webhooks/deliveries/${delivery.delivery_id}`);
      },
    });

  return (
    <PageLayout
      title="Subscription"
      description={s ? <span className="wh-url">{s.url}</span> : <code>{subscriptionId}</code>}
      actions={
        s && (
          <div className="wh-actions">
            <button type="button" className="button button-primary" onClick={sendTest} disabled={test.isPending}>
              {test.isPending ? 'Sending…' : 'Send a test event'}
            </button>
            <button type="button" className="button button-danger-quiet" onClick={() => setDeleting(true)}>
              Delete subscription
            </button>
          </div>
        )
      }
    >
      <WebhooksNav />
      {subscription.error !== null && (
        <ErrorBanner error={subscription.error} title="Could not load the subscription" onRetry={() => void subscription.refetch()} />
      )}
      {test.error !== null && <ErrorBanner error={test.error} title="Could not send the test event" />}
      {subscription.isLoading && <p className="muted loading">Loading the subscription…</p>}
      {rotated && (
        <SecretPanel
          title="New signing secret"
          secret={rotated.secret}
          warning="Copy it now and give it to the receiver: the service keeps it encrypted to sign deliveries and never shows it again."
          note={
            rotated.previous_secret_valid_until
              ? `The replaced secret keeps signing beside it until ${new Date(rotated.previous_secret_valid_until).toLocaleString()}.`
              : 'The replaced secret no longer signs.'
          }
          onDone={() => setRotated(null)}
        />
      )}
      {s && (
        <>
          <Section title="About">
            <dl className="wh-facts">
              <div>
                <dt>Id</dt>
                <dd>
                  <code>{s.subscription_id}</code>
                </dd>
              </div>
              <div>
                <dt>Signing</dt>
                <dd>{signingLabel(s.signing)}</dd>
              </div>
              <div>
                <dt>State</dt>
                <dd>{s.enabled ? <StatusBadge tone="ok">enabled</StatusBadge> : <StatusBadge tone="neutral">disabled</StatusBadge>}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <Time value={s.created_at} />
                </dd>
              </div>
              <div>
                <dt>Updated</dt>
                <dd>
                  <Time value={s.updated_at} />
                </dd>
              </div>
            </dl>
          </Section>
          <Section title="Settings">
            {/* Keyed by its last update: a save (or another operator's) starts the form again from what is stored. */}
            <EditSubscriptionForm key={s.updated_at} subscription={s} />
          </Section>
          <Section title="Signing secret">
            <RotateSecret
              subscription={s}
              onRotated={(next) => {
                setRotated(next);
                notify('Secret rotated');
              }}
            />
          </Section>
          <Section
            title="Deliveries of this subscription"
            id="subscription-deliveries"
            actions={
              <Link to={`/webhooks/deliveries?subscription_id=${encodeURIComponent(s.subscription_id)}`}>Open in the delivery log</Link>
            }
          >
            <DeliveryList
              filter={{ ...filter, subscription_id: s.subscription_id }}
              onFilter={setFilter}
              withSubscription={false}
              empty={
                <EmptyState title={filter.status || filter.event_id ? 'No delivery matches these filters' : 'No deliveries yet'}>
                  <p>Send a test event (above), or wait for an event this subscription asks for.</p>
                </EmptyState>
              }
            />
          </Section>
        </>
      )}
      <ConfirmDialog
        open={deleting}
        title="Delete this subscription?"
        confirmLabel="Delete subscription"
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await remove.mutateAsync(subscriptionId);
          notify(`Subscription to ${s?.url ?? subscriptionId} deleted`);
          void navigate('/webhooks');
        }}
      >
        <p>
          <span className="wh-url">{s?.url}</span> receives no more events. Its pending deliveries end without another attempt. This cannot
          be undone.
        </p>
      </ConfirmDialog>
    </PageLayout>
  );
}
