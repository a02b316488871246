/**
 * Replay by time range: re-deliver the tenant's recorded events of [since, until) (optionally only
 * some event names, or one subscription) to the subscriptions that ask for them now, then follow the
 * replay (`GET /v1/webhook/replays/{id}`, every second) until it has completed or failed.
 */
import type { EventName, WebhookReplayRequest } from '@combo/client';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { fieldOf } from '../../api/errors';
import { useReplay, useStartReplay, useSubscriptionChoices } from '../../api/webhooks';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { ProgressBar } from '../../components/ProgressBar';
import { StatusBadge } from '../../components/StatusBadge';
import { formatNumber, Time } from '../../components/Time';
import { TimeRangeFields } from '../../components/TimeRangeFields';
import { isoToLocal, type LocalRange } from '../../local-time';
import { EventPicker } from './EventPicker';
import { shortUrl, WebhooksNav } from './ui';

const HOUR_MS = 3_600_000;

function ReplayForm() {
  const start = useStartReplay();
  const choices = useSubscriptionChoices();
  const navigate = useNavigate();
  const [range, setRange] = useState<LocalRange>(() => ({
    since: isoToLocal(Date.now() - 24 * HOUR_MS),
    until: isoToLocal(Date.now() + 60_000),
  }));
  const [events, setEvents] = useState<EventName[]>([]);
  const [subscriptionId, setSubscriptionId] = useState('');
  const ids = { subscription: useId() };
  const invalid = fieldOf(start.error)?.split('.')[0];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: WebhookReplayRequest = {
      since: new Date(range.since).toISOString(),
      until: new Date(range.until).toISOString(),
      ...(events.length > 0 ? { events } : {}),
      ...(subscriptionId ? { subscription_id: subscriptionId } : {}),
    };
    start.mutate(body, { onSuccess: (replay) => void navigate(`/webhooks/replays/${replay.replay_id}`, { state: { request: body } }) });
  };

  return (
    <form className="wh-form" onSubmit={submit} aria-label="Replay events by time range">
      <div className="form-row">
        <TimeRangeFields
          value={range}
          onChange={setRange}
          labels={{ since: 'Since (inclusive)', until: 'Until (exclusive)' }}
          required
          invalid={invalid}
        />
        <div className="field">
          <label htmlFor={ids.subscription}>Subscription</label>
          <select
            id={ids.subscription}
            value={subscriptionId}
            onChange={(event) => setSubscriptionId(event.target.value)}
            aria-invalid={invalid === 'subscription_id'}
          >
            <option value="">Every subscription that asks for them</option>
            {(choices.data?.items ?? []).map((s) => (
              <option key={s.subscription_id} value={s.subscription_id}>
                {shortUrl(s.url)} ({s.subscription_id})
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="help">Times are in your local time zone ({Intl.DateTimeFormat().resolvedOptions().timeZone}).</p>
      <EventPicker
        legend="Event names"
        hint="Only these events; none chosen: every event of the range."
        value={events}
        onChange={setEvents}
        invalid={invalid === 'events'}
      />
      {start.error !== null && <ErrorBanner error={start.error} title="Could not start the replay" />}
      <button type="submit" className="button button-primary" disabled={start.isPending}>
        {start.isPending ? 'Starting…' : 'Start replay'}
      </button>
    </form>
  );
}

export function ReplayStart() {
  return (
    <PageLayout
      title="Replay by time range"
      description="Send the events recorded in a time range again, with their original event ids, to the subscriptions that ask for them now. Useful after a receiver's outage."
    >
      <WebhooksNav />
      <Section title="What to replay">
        <ReplayForm />
      </Section>
    </PageLayout>
  );
}

/** Seconds since `from`, ticking every second while `running`. */
function useElapsed(from: number, running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [running]);
  return Math.max(0, Math.round((now - from) / 1_000));
}

export function ReplayProgress() {
  const { replayId = '' } = useParams();
  const location = useLocation();
  const request = (location.state as { request?: WebhookReplayRequest } | null)?.request;
  const replay = useReplay(replayId);
  const [openedAt] = useState(() => Date.now());
  const r = replay.data;
  const running = r === undefined || r.status === 'running';
  const elapsed = useElapsed(openedAt, running && replay.error === null);

  return (
    <PageLayout
      title="Replay progress"
      description={
        <>
          Replay <code>{replayId}</code>, followed every second until it ends.
        </>
      }
      actions={
        <Link to="/webhooks/replays" className="button wh-button-link">
          New replay
        </Link>
      }
    >
      <WebhooksNav />
      {replay.error !== null && (
        <ErrorBanner error={replay.error} title="Could not read the replay's progress" onRetry={() => void replay.refetch()} />
      )}
      <Section title="Progress">
        {r && (
          <>
            <p role="status" className="wh-replay-status">
              {r.status === 'running' && (
                <>
                  <StatusBadge tone="info">running</StatusBadge> Going through the recorded events, a page of 100 at a time ({elapsed} s on
                  this page){r.deliveries_started !== null && <>: {formatNumber(r.deliveries_started)} started so far</>}.
                </>
              )}
              {r.status === 'completed' && (
                <>
                  <StatusBadge tone="ok">done</StatusBadge> Completed: {formatNumber(r.deliveries_started ?? 0)}{' '}
                  {r.deliveries_started === 1 ? 'delivery' : 'deliveries'} started.
                </>
              )}
              {r.status === 'failed' && (
                <>
                  <StatusBadge tone="danger">failed</StatusBadge> The replay stopped before the end of its range (it timed out or was
                  terminated); its workflow <code>{r.workflow_id}</code> in Temporal says how many deliveries it started.
                </>
              )}
            </p>
            <ProgressBar
              label="Replay"
              value={r.status === 'running' ? undefined : 1}
              max={1}
              text={
                r.status === 'running'
                  ? r.deliveries_started !== null
                    ? `working… ${formatNumber(r.deliveries_started)} started`
                    : 'working…'
                  : r.status === 'completed'
                    ? `done · ${formatNumber(r.deliveries_started ?? 0)} ${r.deliveries_started === 1 ? 'delivery' : 'deliveries'} started`
                    : 'stopped'
              }
            />
          </>
        )}
        {!r && replay.isLoading && <p className="muted loading">Asking for the replay's progress…</p>}
        <dl className="wh-facts">
          {request && (
            <>
              <div>
                <dt>Since</dt>
                <dd>
                  <Time value={request.since} />
                </dd>
              </div>
              <div>
                <dt>Until</dt>
                <dd>
                  <Time value={request.until} />
                </dd>
              </div>
              <div>
                <dt>Events</dt>
                <dd>{request.events?.length ? request.events.join(', ') : 'every event'}</dd>
              </div>
              <div>
                <dt>Subscription</dt>
                <dd>
                  {request.subscription_id ? (
                    <Link to={`/webhooks/subscriptions/${request.subscription_id}`}>
                      <code>{request.subscription_id}</code>
                    </Link>
                  ) : (
                    'every subscription that asks for them'
                  )}
                </dd>
              </div>
            </>
          )}
          {r && (
            <div>
              <dt>Workflow</dt>
              <dd>
                <code>{r.workflow_id}</code>
              </dd>
            </div>
          )}
        </dl>
        {r?.status === 'completed' && (
          <p>
            The replayed deliveries are in the <Link to="/webhooks/deliveries">delivery log</Link>; each links back to this replay.
          </p>
        )}
      </Section>
    </PageLayout>
  );
}
