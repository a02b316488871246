/**
 * Automations → integrations: one per sending system (channel). Creating one shows its signing
 * secret and inbound URL once, with a ready-made signed `curl` command; rotating shows the new
 * secret once (the old one keeps verifying for the grace chosen); deleting asks first.
 */
import type { Integration, IntegrationWithSecret } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { useCreateIntegration, useDeleteIntegration, useIntegrations, useRotateIntegration } from '../../api/automations';
import { fieldOf } from '../../api/errors';
import { isAdmin, useSession } from '../../auth/session';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { NameFilter, NoNameMatch, useNameParam } from '../../components/NameFilter';
import { ErrorBanner } from '../../components/ErrorBanner';
import { Section } from '../../components/PageLayout';
import { SecretPanel } from '../../components/SecretPanel';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { type Channel, CHANNELS, channelLabel, signedCurlExample } from './channels';

const GRACES = [
  { value: 3600, label: '1 hour (default)' },
  { value: 0, label: 'None: the old secret stops now' },
  { value: 86_400, label: '1 day' },
  { value: 604_800, label: '7 days (the longest)' },
] as const;

/** What the panel shows once: the integration with its secret, and why (created or rotated). */
interface Shown {
  integration: IntegrationWithSecret;
  rotated: boolean;
}

function CreateIntegrationForm({ onCreated }: { onCreated: (integration: IntegrationWithSecret) => void }) {
  const create = useCreateIntegration();
  const [channel, setChannel] = useState<Channel>('git-b');
  const [name, setName] = useState('');
  const ids = { channel: useId(), name: useId() };
  const invalid = fieldOf(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { channel, ...(name.trim() ? { name: name.trim() } : {}) },
      {
        onSuccess: (integration) => {
          setName('');
          onCreated(integration);
        },
      },
    );
  };
  return (
    <form className="form-row" onSubmit={submit} aria-label="Create an integration">
      <div className="field">
        <label htmlFor={ids.channel}>Channel</label>
        <select
          id={ids.channel}
          value={channel}
          onChange={(e) => setChannel(e.target.value as Channel)}
          aria-invalid={invalid === 'channel'}
        >
          {CHANNELS.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={100}
          placeholder="default: the channel"
          aria-invalid={invalid === 'name'}
        />
      </div>
      <div className="field field-action">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create integration'}
        </button>
      </div>
      {create.error !== null && (
        <div className="form-error">
          <ErrorBanner error={create.error} title="Could not create the integration" />
        </div>
      )}
    </form>
  );
}

/** The inbound URL and the signed example, shown once with the secret (the example holds it). */
function IntegrationSetup({ integration }: { integration: IntegrationWithSecret }) {
  const example = signedCurlExample({ url: integration.webhook_url, secret: integration.secret, channel: integration.channel });
  const exampleId = useId();
  return (
    <div className="auto-setup">
      <h3>Inbound URL</h3>
      <p className="help">
        Configure this address in the sending system
        {integration.channel === 'generic' ? ', with {trigger_id} replaced by the id of the generic event trigger it sends to' : ''}. Each
        call is signed with the secret: <code>X-Combo-Signature: sha256=</code> and the hex HMAC-SHA256 of{' '}
        <code>&lt;X-Combo-Timestamp&gt;.&lt;raw body&gt;</code>, with <code>X-Combo-Timestamp</code> (Unix seconds, within 5 minutes) and a
        unique <code>X-Combo-Event-Id</code>.
      </p>
      <div className="secret-value">
        <code data-testid="inbound-url">{integration.webhook_url}</code>
        <CopyButton value={integration.webhook_url} label="the inbound URL" />
      </div>
      <h3 id={exampleId}>Try it: a signed request</h3>
      <p className="help">
        Paste into a shell with <code>openssl</code> and <code>curl</code>: it signs a sample {channelLabel(integration.channel)} event with
        the secret and sends it{integration.channel === 'generic' ? ' (set TRIGGER_ID first)' : ''}. Event triggers of this channel then see
        it.
      </p>
      <div className="auto-code-block">
        <pre tabIndex={0} aria-labelledby={exampleId} data-testid="curl-example">
          <code>{example}</code>
        </pre>
        <CopyButton value={example} label="the signed curl command" />
      </div>
    </div>
  );
}

/** Integrations are an admin's (the API refuses a member 10003 on each of their calls): a member is told so. */
export function IntegrationsTab() {
  const admin = isAdmin(useSession());
  return admin ? (
    <IntegrationsOfTenant />
  ) : (
    <p className="banner banner-info">Integrations are managed by admins: sign in with an admin key to see, create or rotate them.</p>
  );
}

function IntegrationsOfTenant() {
  const notify = useToast();
  const [name, setName] = useNameParam();
  const list = useIntegrations(name);
  const rotate = useRotateIntegration();
  const remove = useDeleteIntegration();
  const [shown, setShown] = useState<Shown | null>(null);
  const [rotating, setRotating] = useState<Integration | null>(null);
  const [grace, setGrace] = useState<number>(3600);
  const [deleting, setDeleting] = useState<Integration | null>(null);
  const graceId = useId();

  const columns: Column<Integration>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (i) => (
        <>
          <strong>{i.name}</strong>
          <br />
          <code className="muted">{i.integration_id}</code>
        </>
      ),
    },
    { key: 'channel', header: 'Channel', render: (i) => channelLabel(i.channel) },
    { key: 'url', header: 'Inbound URL', render: (i) => <code className="auto-wrap">{i.webhook_url}</code> },
    {
      key: 'secret',
      header: 'Secret',
      render: (i) => (
        <>
          <code>…{i.secret_last4}</code>
          {i.previous_secret_valid_until && (
            <div className="muted auto-small">
              previous one valid until <Time value={i.previous_secret_valid_until} />
            </div>
          )}
        </>
      ),
    },
    { key: 'created', header: 'Created', render: (i) => <Time value={i.created_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (i) => (
        <div className="auto-actions">
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setGrace(3600);
              setRotating(i);
            }}
          >
            Rotate secret<span className="visually-hidden"> of {i.name}</span>
          </button>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(i)}>
            Delete<span className="visually-hidden"> {i.name}</span>
          </button>
        </div>
      ),
    },
  ];

  return (
    <>
      {shown && (
        <SecretPanel
          key={`${shown.integration.integration_id}-${shown.integration.secret_last4}`}
          title={`Signing secret of ${shown.integration.name}`}
          secret={shown.integration.secret}
          warning="Copy it now and keep it somewhere safe: the service keeps it encrypted and cannot show it again (rotate it for a new one)."
          note={
            shown.rotated
              ? shown.integration.previous_secret_valid_until
                ? `The secret was rotated; the previous one keeps verifying until ${new Date(shown.integration.previous_secret_valid_until).toLocaleString()}.`
                : 'The secret was rotated; the previous one no longer verifies.'
              : `${channelLabel(shown.integration.channel)} integration created.`
          }
          onDone={() => setShown(null)}
        >
          <IntegrationSetup integration={shown.integration} />
        </SecretPanel>
      )}
      <Section title="Create an integration">
        <p className="help">
          One per sending system (two GitHub organisations: two integrations, each with its own secret). The inbound URL names it, which is
          how an inbound call finds your tenant.
        </p>
        <CreateIntegrationForm
          onCreated={(integration) => {
            setShown({ integration, rotated: false });
            notify(`Integration "${integration.name}" created`);
          }}
        />
      </Section>
      <Section title="Integrations">
        <NameFilter key={name ?? ''} label="integrations" name={name} onApply={setName} />
        <DataTable
          caption="integrations"
          columns={columns}
          list={list}
          rowKey={(i) => i.integration_id}
          empty={
            name ? (
              <NoNameMatch what="integration" name={name} />
            ) : (
              <EmptyState title="No integrations yet">
                <p>Create one above for each system that sends events (GitHub, GitLab, Gerrit, Lark, DingTalk, or any system).</p>
              </EmptyState>
            )
          }
        />
      </Section>
      <ConfirmDialog
        open={rotating !== null}
        title={`Rotate the secret of "${rotating?.name ?? ''}"?`}
        confirmLabel="Rotate secret"
        onClose={() => setRotating(null)}
        onConfirm={async () => {
          if (!rotating) return;
          const rotated = await rotate.mutateAsync({ integrationId: rotating.integration_id, graceSeconds: grace });
          setShown({ integration: rotated, rotated: true });
          notify(`Secret of "${rotated.name}" rotated`);
        }}
      >
        <p>A new secret is made and shown once. Calls signed with the current one keep verifying during the grace period.</p>
        <div className="field">
          <label htmlFor={graceId}>Grace period</label>
          <select id={graceId} value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
            {GRACES.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        </div>
        {rotating?.previous_secret_valid_until && (
          <p className="banner banner-warn">
            <StatusBadge tone="warn">note</StatusBadge> The secret replaced by the last rotation stops verifying now.
          </p>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the integration "${deleting?.name ?? ''}"?`}
        confirmLabel="Delete integration"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await remove.mutateAsync(deleting.integration_id);
          if (shown?.integration.integration_id === deleting.integration_id) setShown(null);
          notify(`Integration "${deleting.name}" deleted`);
        }}
      >
        <p>
          Calls to <code className="auto-wrap">{deleting?.webhook_url}</code> are refused from now on. Triggers that name this integration
          hear nothing more. This cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}
