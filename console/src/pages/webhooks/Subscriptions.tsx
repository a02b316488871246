/**
 * Webhook subscriptions: the list (paged on the server) and the form that creates one (URL, the
 * events it asks for, a description, how deliveries are signed); the new signing secret is shown once.
 */
import type { EventName, WebhookSigning, WebhookSubscription, WebhookSubscriptionWithSecret } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { fieldOf } from '../../api/errors';
import { useCreateSubscription, useSubscriptions } from '../../api/webhooks';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { SecretPanel } from '../../components/SecretPanel';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { EventPicker } from './EventPicker';
import { SigningPicker, signingLabel } from './SigningPicker';
import { WebhooksNav } from './ui';

/** The API's field (`url`, `events`, `events.2`) as the form control it names. */
export const fieldName = (error: unknown): string | undefined => fieldOf(error)?.split('.')[0];

function CreateSubscriptionForm({ onCreated }: { onCreated: (subscription: WebhookSubscriptionWithSecret) => void }) {
  const create = useCreateSubscription();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>([]);
  const [description, setDescription] = useState('');
  const [signing, setSigning] = useState<WebhookSigning>('combo');
  const ids = { url: useId(), description: useId() };
  const invalid = fieldName(create.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { url: url.trim(), events, description: description.trim(), signing },
      {
        onSuccess: (created) => {
          setUrl('');
          setEvents([]);
          setDescription('');
          setSigning('combo');
          onCreated(created);
        },
      },
    );
  };

  return (
    <form className="wh-form" onSubmit={submit} aria-label="Create a subscription">
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
            placeholder="https://example.com/hooks/combo"
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
            placeholder="What receives these events"
            aria-invalid={invalid === 'description'}
          />
        </div>
      </div>
      <div className="form-row">
        <SigningPicker value={signing} onChange={setSigning} invalid={invalid === 'signing'} />
      </div>
      <EventPicker
        legend="Events"
        hint="The events delivered to this URL (at least one). A test event can be sent whatever you choose."
        value={events}
        onChange={setEvents}
        invalid={invalid === 'events'}
      />
      {create.error !== null && <ErrorBanner error={create.error} title="Could not create the subscription" />}
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create subscription'}
      </button>
    </form>
  );
}

export function Subscriptions() {
  const notify = useToast();
  const subscriptions = useSubscriptions();
  const [created, setCreated] = useState<WebhookSubscriptionWithSecret | null>(null);

  const columns: Column<WebhookSubscription>[] = [
    {
      key: 'url',
      header: 'URL',
      render: (s) => (
        <Link to={`/webhooks/subscriptions/${s.subscription_id}`} className="wh-url">
          {s.url}
        </Link>
      ),
    },
    { key: 'description', header: 'Description', render: (s) => s.description || <span className="muted">—</span> },
    {
      key: 'events',
      header: 'Events',
      render: (s) => (
        <span title={s.events.join(', ')}>
          {s.events.slice(0, 2).map((e, i) => (
            <span key={e}>
              {i > 0 && ', '}
              <code>{e}</code>
            </span>
          ))}
          {s.events.length > 2 && <span className="muted"> and {s.events.length - 2} more</span>}
        </span>
      ),
    },
    {
      key: 'enabled',
      header: 'State',
      render: (s) => (s.enabled ? <StatusBadge tone="ok">enabled</StatusBadge> : <StatusBadge tone="neutral">disabled</StatusBadge>),
    },
    { key: 'signing', header: 'Signing', render: (s) => signingLabel(s.signing) },
    { key: 'secret', header: 'Secret', render: (s) => <code>…{s.secret_last4}</code> },
    { key: 'created', header: 'Created', render: (s) => <Time value={s.created_at} /> },
  ];

  return (
    <PageLayout
      title="Webhook subscriptions"
      description="Subscriptions send the service's events to your URLs, signed with their secret. Deliveries are retried five times (at once, then 30 s, 2 min, 10 min and 1 h after each failure) before they go to the dead-letter queue."
    >
      <WebhooksNav />
      {created && (
        <SecretPanel
          title="Signing secret of the new subscription"
          secret={created.secret}
          warning="Copy it now and give it to the receiver: the service keeps it encrypted to sign deliveries and never shows it again."
          note={
            created.signing === 'standard_webhooks'
              ? `Deliveries to ${created.url} are signed with it twice: X-Combo-Signature, and webhook-signature, which a standardwebhooks library checks with this secret. Check the signature before trusting a delivery.`
              : `Deliveries to ${created.url} are signed with it (X-Combo-Signature: sha256=HMAC of "<timestamp>.<body>"). Check the signature before trusting a delivery.`
          }
          onDone={() => setCreated(null)}
        />
      )}
      {created && (
        <p className="wh-created-link">
          <Link to={`/webhooks/subscriptions/${created.subscription_id}`}>Open the new subscription</Link> to send it a test event.
        </p>
      )}
      <Section title="Subscriptions">
        <DataTable
          caption="Webhook subscriptions"
          columns={columns}
          list={subscriptions}
          rowKey={(s) => s.subscription_id}
          empty={
            <EmptyState title="No subscriptions yet">
              <p>Create one below: give the URL that receives the events and pick the events it wants.</p>
            </EmptyState>
          }
        />
      </Section>
      <Section title="Create a subscription">
        <CreateSubscriptionForm
          onCreated={(subscription) => {
            setCreated(subscription);
            notify(`Subscription to ${subscription.url} created`);
          }}
        />
      </Section>
    </PageLayout>
  );
}
