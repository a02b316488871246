/**
 * Personal settings → API keys: create one (its secret shown once, with copy), list them page by
 * page, revoke one after confirming. Members see and manage their own keys; admins every key of
 * the tenant, with its owner.
 */
import type { ApiKey, CreatedApiKey, Role } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '../api/api-keys';
import { fieldOf } from '../api/errors';
import { isAdmin, useSession } from '../auth/session';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { type Column, DataTable } from '../components/DataTable';
import { EmptyState } from '../components/EmptyState';
import { ErrorBanner } from '../components/ErrorBanner';
import { FilterBar } from '../components/FilterBar';
import { PageLayout, Section } from '../components/PageLayout';
import { SecretPanel } from '../components/SecretPanel';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { useToast } from '../components/Toast';

const EXPIRIES = [
  { value: 'never', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'date', label: 'On a date…' },
] as const;

type Expiry = (typeof EXPIRIES)[number]['value'];

/** The key's expiry as the API takes it (ISO 8601), or undefined for none. A date is the end of that local day. */
function expiryOf(choice: Expiry, date: string, now = Date.now()): string | undefined {
  if (choice === 'never') return undefined;
  if (choice === 'date') return date ? new Date(`${date}T23:59:59`).toISOString() : '';
  return new Date(now + Number(choice) * 86_400_000).toISOString();
}

function keyStatus(key: ApiKey): { tone: 'ok' | 'danger' | 'neutral'; text: string } {
  if (key.revoked_at) return { tone: 'neutral', text: 'revoked' };
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return { tone: 'danger', text: 'expired' };
  return { tone: 'ok', text: 'active' };
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const session = useSession();
  const create = useCreateApiKey();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [expiry, setExpiry] = useState<Expiry>('90');
  const [date, setDate] = useState('');
  const [owner, setOwner] = useState('');
  const ids = { name: useId(), role: useId(), expiry: useId(), date: useId(), owner: useId() };
  const invalidField = fieldOf(create.error);
  const admin = isAdmin(session);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const expires_at = expiryOf(expiry, date);
    const owner_id = admin ? owner.trim() : '';
    create.mutate(
      { name, role, ...(expires_at === undefined ? {} : { expires_at }), ...(owner_id ? { owner_id } : {}) },
      {
        onSuccess: (key) => {
          setName('');
          setOwner('');
          onCreated(key);
        },
      },
    );
  };

  return (
    <form className="form-row" onSubmit={submit} aria-label="Create an API key">
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
          maxLength={100}
          placeholder="e.g. ci-deploy"
          aria-invalid={invalidField === 'name'}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.role}>Role</label>
        <select id={ids.role} value={role} onChange={(event) => setRole(event.target.value as Role)} aria-invalid={invalidField === 'role'}>
          <option value="member">member</option>
          {/* A key has at most its creator's role: only admins may make admin keys. */}
          {admin && <option value="admin">admin</option>}
        </select>
      </div>
      {admin && (
        <div className="field">
          <label htmlFor={ids.owner}>For user</label>
          <input
            id={ids.owner}
            value={owner}
            onChange={(event) => setOwner(event.target.value)}
            maxLength={200}
            placeholder="you, or a user id"
            title="Empty: the key is yours (it manages your keys). A user id: the key is theirs."
            aria-invalid={invalidField === 'owner_id'}
          />
        </div>
      )}
      <div className="field">
        <label htmlFor={ids.expiry}>Expires</label>
        <select
          id={ids.expiry}
          value={expiry}
          onChange={(event) => setExpiry(event.target.value as Expiry)}
          aria-invalid={invalidField === 'expires_at'}
        >
          {EXPIRIES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {expiry === 'date' && (
        <div className="field">
          <label htmlFor={ids.date}>Expiry date</label>
          <input
            id={ids.date}
            type="date"
            value={date}
            onChange={(event) => setDate(event.target.value)}
            required
            aria-invalid={invalidField === 'expires_at'}
          />
        </div>
      )}
      <div className="field field-action">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </div>
      {create.error !== null && (
        <div className="form-error">
          <ErrorBanner error={create.error} title="Could not create the key" />
        </div>
      )}
    </form>
  );
}

export function ApiKeys() {
  const session = useSession();
  const admin = isAdmin(session);
  const notify = useToast();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [ownerDraft, setOwnerDraft] = useState('');
  const [owner, setOwner] = useState('');
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const ownerId = useId();
  const keys = useApiKeys(owner ? { owner_id: owner } : {});
  const revoke = useRevokeApiKey();

  const columns: Column<ApiKey>[] = [
    { key: 'name', header: 'Name', render: (key) => <strong>{key.name}</strong> },
    { key: 'prefix', header: 'Key', render: (key) => <code>{key.prefix}…</code> },
    { key: 'role', header: 'Role', render: (key) => key.role },
    // Members see only their own keys; an admin sees the tenant's, so whose each is matters.
    ...(admin
      ? [
          {
            key: 'owner',
            header: 'Owner',
            render: (key: ApiKey) => (
              <>
                <code>{key.owner_id}</code>
                {key.owner_id === session.userId && <span className="muted"> (you)</span>}
              </>
            ),
          },
        ]
      : []),
    { key: 'created', header: 'Created', render: (key) => <Time value={key.created_at} /> },
    { key: 'expires', header: 'Expires', render: (key) => <Time value={key.expires_at} empty="never" /> },
    {
      key: 'status',
      header: 'Status',
      render: (key) => {
        const status = keyStatus(key);
        return (
          <>
            <StatusBadge tone={status.tone}>{status.text}</StatusBadge>
            {key.key_id === session.keyId && <span className="muted"> (this session)</span>}
          </>
        );
      },
    },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (key) =>
        key.revoked_at ? null : (
          <button
            type="button"
            className="button button-small button-danger-quiet"
            onClick={() => setRevoking(key)}
            aria-label={`Revoke ${key.name}`}
          >
            Revoke
          </button>
        ),
    },
  ];

  return (
    <PageLayout
      title="API keys"
      description={
        admin
          ? 'Keys of every user of your tenant. A key works until it expires or is revoked; it is shown once, when it is created.'
          : 'Your keys. A key works until it expires or is revoked; it is shown once, when it is created.'
      }
    >
      {created && (
        <SecretPanel
          title="New API key"
          secret={created.api_key}
          note={`"${created.name}" (${created.role}, owned by ${created.owner_id === session.userId ? 'you' : created.owner_id}). Send it as Authorization: Bearer <key>, or sign in here with it.`}
          onDone={() => setCreated(null)}
        />
      )}
      <Section title="Create a key">
        <CreateKeyForm
          onCreated={(key) => {
            setCreated(key);
            notify(`Key "${key.name}" created`);
          }}
        />
      </Section>
      <Section title={admin ? 'Keys of the tenant' : 'Your keys'}>
        {admin && (
          <FilterBar
            label="API keys"
            active={owner !== ''}
            onApply={() => setOwner(ownerDraft.trim())}
            onClear={() => {
              setOwnerDraft('');
              setOwner('');
            }}
          >
            <div className="field">
              <label htmlFor={ownerId}>Owner</label>
              <input id={ownerId} value={ownerDraft} onChange={(event) => setOwnerDraft(event.target.value)} placeholder="a user id" />
            </div>
          </FilterBar>
        )}
        <DataTable
          caption="API keys"
          columns={columns}
          list={keys}
          rowKey={(key) => key.key_id}
          empty={
            <EmptyState title={owner ? `No keys of ${owner}` : 'No API keys yet'}>
              <p>{owner ? 'Clear the filter to see every key.' : 'Create one above: give it a name, a role and an expiry.'}</p>
            </EmptyState>
          }
        />
      </Section>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the key "${revoking?.name ?? ''}"?`}
        confirmLabel="Revoke key"
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          await revoke.mutateAsync(revoking.key_id);
          notify(`Key "${revoking.name}" revoked`);
        }}
      >
        <p>
          Programs using <code>{revoking?.prefix}…</code> stop working at once, and console sessions signed in with it end. This cannot be
          undone.
        </p>
        {revoking?.key_id === session.keyId && (
          <p className="banner banner-warn">You are signed in with this key: revoking it signs you out.</p>
        )}
      </ConfirmDialog>
    </PageLayout>
  );
}
