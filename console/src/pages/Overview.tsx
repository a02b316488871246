/** Overview: is the service ready, how did the last hour go, what is waiting for an operator. */
import { Link } from 'react-router';
import { hasCode } from '../api/errors';
import { type Check, useCosts, useDeadDeliveries, useReadiness, useRunsLastHour } from '../api/overview';
import { ErrorBanner } from '../components/ErrorBanner';
import { PageLayout, Section } from '../components/PageLayout';
import { ProgressBar } from '../components/ProgressBar';
import { StatCard } from '../components/StatCard';
import { StatusBadge } from '../components/StatusBadge';
import { formatNumber } from '../components/Time';

/** The readiness checks `GET /v1/ready` answers, in the order shown. */
const BACKENDS: Array<{ key: string; label: string; what: string }> = [
  { key: 'temporal', label: 'Temporal', what: 'runs every workflow' },
  { key: 'mongodb', label: 'MongoDB', what: 'holds every record' },
  { key: 'elasticsearch', label: 'Elasticsearch', what: 'indexes knowledge' },
  { key: 'worker', label: 'Workers', what: 'poll the task queue' },
];

function CheckCard({ label, what, check }: { label: string; what: string; check: Check | undefined }) {
  return (
    <div className={`stat ${check?.ok ? 'stat-ok' : 'stat-danger'}`}>
      <dt className="stat-label">{label}</dt>
      <dd className="stat-value">
        {check === undefined ? (
          <StatusBadge tone="neutral">not reported</StatusBadge>
        ) : check.ok ? (
          <StatusBadge tone="ok">ready</StatusBadge>
        ) : (
          <StatusBadge tone="danger">down</StatusBadge>
        )}
      </dd>
      <dd className="stat-hint">
        {check?.error ?? what}
        {check && <span className="muted"> · {check.latency_ms} ms</span>}
      </dd>
    </div>
  );
}

export function Overview() {
  const readiness = useReadiness();
  const runs = useRunsLastHour();
  const dead = useDeadDeliveries();
  const costs = useCosts();
  const state = readiness.data;
  const summary = costs.data?.summary;
  const today = costs.data?.today;

  return (
    <PageLayout title="Overview" description="The service's readiness and the last hour at a glance; refreshed every few seconds.">
      <Section
        title="Readiness"
        actions={
          state && (
            <span className="muted">
              {state.ready ? <StatusBadge tone="ok">Ready</StatusBadge> : <StatusBadge tone="danger">Not ready</StatusBadge>} checked{' '}
              {new Date(state.checkedAt).toLocaleTimeString()}
            </span>
          )
        }
      >
        {readiness.error !== null && <ErrorBanner error={readiness.error} title="Could not ask the service whether it is ready" />}
        {state && !state.ready && <p className="banner banner-warn">{state.message}</p>}
        <dl className="stats" aria-busy={readiness.isLoading}>
          {BACKENDS.map((backend) => (
            <CheckCard key={backend.key} label={backend.label} what={backend.what} check={state?.checks[backend.key]} />
          ))}
        </dl>
      </Section>

      <Section title="Last hour and today">
        <dl className="stats">
          <StatCard
            label="Runs, last hour"
            value={runs.data && formatNumber(runs.data.runs)}
            loading={runs.isLoading}
            error={runs.error}
            hint={<Link to="/sessions">Sessions &amp; runs</Link>}
          />
          <StatCard
            label="Failed runs, last hour"
            value={runs.data && formatNumber(runs.data.failed)}
            tone={runs.data && runs.data.failed > 0 ? 'danger' : 'neutral'}
            loading={runs.isLoading}
            error={runs.error}
            hint={runs.data && runs.data.failed > 0 ? 'look at their errors under Sessions & runs' : 'none failed'}
          />
          <StatCard
            label="Dead deliveries"
            value={hasCode(dead.error, 10003) ? '—' : dead.data !== undefined && formatNumber(dead.data)}
            tone={dead.data ? 'warn' : 'neutral'}
            loading={dead.isLoading}
            error={hasCode(dead.error, 10003) ? undefined : dead.error}
            hint={
              hasCode(dead.error, 10003) ? (
                'only admins see the dead-letter queue'
              ) : dead.data ? (
                <Link to="/webhooks/dead-letters">not replayed yet: open the dead-letter queue</Link>
              ) : (
                'webhook deliveries whose attempts all failed, not replayed yet'
              )
            }
          />
          <StatCard
            label="Tokens today"
            value={today && formatNumber(today.tokens)}
            loading={costs.isLoading}
            error={costs.error}
            hint={today && `${formatNumber(today.runs)} completion runs ended today (UTC)`}
          />
        </dl>
      </Section>

      <Section title="Cost threshold">
        {costs.error !== null && <ErrorBanner error={costs.error} title="Could not read the costs" />}
        {summary &&
          (summary.threshold_tokens === null ? (
            <p className="muted">
              No token threshold for period {summary.period}: {formatNumber(summary.tokens)} tokens in {formatNumber(summary.runs)} runs so
              far. An admin sets one under <Link to="/costs">Costs</Link>.
            </p>
          ) : (
            <>
              <ProgressBar
                label={`Tokens of period ${summary.period} against the ${summary.threshold_source === 'tenant' ? "tenant's" : 'default'} threshold`}
                value={summary.tokens}
                max={summary.threshold_tokens}
                text={`${formatNumber(summary.tokens)} of ${formatNumber(summary.threshold_tokens)} tokens`}
              />
              {summary.threshold_exceeded && (
                <p className="banner banner-warn">The threshold is reached: cost.threshold_exceeded was recorded.</p>
              )}
            </>
          ))}
      </Section>
    </PageLayout>
  );
}
