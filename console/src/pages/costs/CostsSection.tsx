/**
 * The Costs section: the current period's tokens, runs and run time against the cost threshold
 * (viewed and set here; turned off with null); and, over a range of UTC days, tokens, run time or
 * runs per day and per agent as SVG charts, each with the same figures as a table.
 */
import type { CostGroupByAgent, CostGroupByDay, CostSummary } from '@combo/client';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { Route, Routes, useSearchParams } from 'react-router';
import { type CostRange, useAgentNames, useCostGroups, useCostSummary, useSetThreshold } from '../../api/costs';
import { fieldOf } from '../../api/errors';
import { isAdmin, useSession } from '../../auth/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { ProgressBar } from '../../components/ProgressBar';
import { StatCard } from '../../components/StatCard';
import { useToast } from '../../components/Toast';
import { formatNumber } from '../../components/Time';
import { NotFound } from '../NotFound';
import { AgentBarChart, type Bar, DayBarChart } from './charts';
import './costs.css';

const DAY_MS = 86_400_000;

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const addDays = (day: string, days: number): string => dayOf(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS);
const isDay = (value: string | null): value is string => value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** A run time in words: "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min". */
function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`;
}

const dayLabel = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const formatDay = (day: string): string => dayLabel.format(new Date(`${day}T00:00:00Z`));

type Metric = 'tokens' | 'duration_ms' | 'runs';

const METRICS: Array<{ value: Metric; label: string; format: (n: number) => string }> = [
  { value: 'tokens', label: 'Tokens', format: (n) => formatNumber(Math.round(n)) },
  { value: 'duration_ms', label: 'Run time', format: formatDuration },
  { value: 'runs', label: 'Runs', format: (n) => formatNumber(Math.round(n)) },
];

const figures = (g: { tokens: number; duration_ms: number; runs: number }) =>
  `${formatNumber(g.tokens)} tokens, ${formatDuration(g.duration_ms)} in ${formatNumber(g.runs)} ${g.runs === 1 ? 'run' : 'runs'}`;

/** Presets of the range: the last n UTC days, today included. */
const PRESETS = [7, 30, 90];

/** The shown range of days (inclusive both ends, as people read it) from the address, else the last 30 days. */
function useDayRange(): { from: string; to: string; setRange: (from: string, to: string) => void } {
  const [params, setParams] = useSearchParams();
  // Today as the page opened (UTC).
  const [today] = useState(() => dayOf(Date.now()));
  const to = isDay(params.get('to')) ? params.get('to')! : today;
  const from = isDay(params.get('from')) ? params.get('from')! : addDays(to, -29);
  return { from, to, setRange: (f, t) => setParams(new URLSearchParams({ from: f, to: t })) };
}

function RangeForm({
  from,
  to,
  error,
  onApply,
}: {
  from: string;
  to: string;
  error: unknown;
  onApply: (from: string, to: string) => void;
}) {
  const [draft, setDraft] = useState({ from, to });
  const ids = { from: useId(), to: useId() };
  const invalid = fieldOf(error, 'query');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft.from, draft.to);
  };
  return (
    <form className="filter-bar" role="search" aria-label="Range of days" onSubmit={submit}>
      <div className="field">
        <label htmlFor={ids.from}>From (UTC day)</label>
        <input
          id={ids.from}
          type="date"
          value={draft.from}
          required
          onChange={(event) => setDraft({ ...draft, from: event.target.value })}
          aria-invalid={invalid === 'since'}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.to}>To (UTC day, included)</label>
        <input
          id={ids.to}
          type="date"
          value={draft.to}
          required
          onChange={(event) => setDraft({ ...draft, to: event.target.value })}
          aria-invalid={invalid === 'until'}
        />
      </div>
      <div className="filter-actions">
        <button type="submit" className="button button-small">
          Show range
        </button>
      </div>
      <div className="costs-presets" role="group" aria-label="Quick ranges">
        {PRESETS.map((days) => (
          <button
            key={days}
            type="button"
            className="button button-small button-quiet"
            onClick={() => {
              const today = dayOf(Date.now());
              onApply(addDays(today, 1 - days), today);
            }}
          >
            Last {days} days
          </button>
        ))}
      </div>
    </form>
  );
}

function MetricChoice({ value, onChange }: { value: Metric; onChange: (metric: Metric) => void }) {
  return (
    <fieldset className="costs-metric">
      <legend>Chart</legend>
      {METRICS.map((metric) => (
        <label key={metric.value}>
          <input
            type="radio"
            name="costs-metric"
            value={metric.value}
            checked={value === metric.value}
            onChange={() => onChange(metric.value)}
          />
          {metric.label}
        </label>
      ))}
    </fieldset>
  );
}

/** The figures of a chart as a table, behind a disclosure (the chart's accessible alternative). */
function FiguresTable({
  caption,
  first,
  rows,
}: {
  caption: string;
  first: string;
  rows: Array<{ key: string; name: ReactNode; g: CostGroupByDay | CostGroupByAgent }>;
}) {
  return (
    <details className="costs-table">
      <summary>{caption} as a table</summary>
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{first}</th>
              <th scope="col" className="cell-numeric">
                Tokens
              </th>
              <th scope="col" className="cell-numeric">
                Run time
              </th>
              <th scope="col" className="cell-numeric">
                Runs
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, name, g }) => (
              <tr key={key} data-key={key}>
                <th scope="row">{name}</th>
                <td className="cell-numeric">{formatNumber(g.tokens)}</td>
                <td className="cell-numeric">{formatDuration(g.duration_ms)}</td>
                <td className="cell-numeric">{formatNumber(g.runs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function ThresholdForm({ current, source }: { current: number | null; source: CostSummary['threshold_source'] }) {
  const session = useSession();
  const set = useSetThreshold();
  const notify = useToast();
  const [value, setValue] = useState(current === null ? '' : String(current));
  const inputId = useId();
  const invalid = fieldOf(set.error) === 'threshold_tokens';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // The new threshold re-keys this form: the promise, unlike mutate's callbacks, outlives it (errors show from set.error).
    set
      .mutateAsync({ threshold_tokens: Number(value) })
      .then((summary) => notify(`Threshold set to ${formatNumber(summary.threshold_tokens ?? 0)} tokens per period`))
      .catch(() => undefined);
  };
  const turnOff = () =>
    void set
      .mutateAsync({ threshold_tokens: null })
      .then(() => notify('Threshold turned off'))
      .catch(() => undefined);
  const useDefault = () =>
    void set
      .mutateAsync('default')
      .then((summary) =>
        notify(
          summary.threshold_tokens === null
            ? 'The installation has no default threshold: none applies'
            : `The installation's default applies: ${formatNumber(summary.threshold_tokens)} tokens per period`,
        ),
      )
      .catch(() => undefined);
  return (
    <form className="form-row" onSubmit={submit} aria-label="Set the cost threshold">
      <div className="field">
        <label htmlFor={inputId}>Tokens per period</label>
        <input
          id={inputId}
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={value}
          required
          onChange={(event) => setValue(event.target.value)}
          aria-invalid={invalid}
        />
      </div>
      <div className="field field-action">
        <button type="submit" className="button button-primary" disabled={set.isPending}>
          Set threshold
        </button>
      </div>
      {current !== null && (
        <div className="field field-action">
          <button type="button" className="button" onClick={turnOff} disabled={set.isPending}>
            Turn the threshold off
          </button>
        </div>
      )}
      {source !== 'default' && (
        <div className="field field-action">
          <button type="button" className="button" onClick={useDefault} disabled={set.isPending}>
            Use the installation default
          </button>
        </div>
      )}
      {!isAdmin(session) && <p className="help form-error">Only admins may change the threshold; the API refuses it to members.</p>}
      {set.error !== null && (
        <div className="form-error">
          <ErrorBanner error={set.error} title="Could not change the threshold" />
        </div>
      )}
    </form>
  );
}

const SOURCE_TEXT = {
  tenant: 'set for this tenant',
  default: "the installation's default (COST_THRESHOLD_TOKENS)",
  none: 'none in force (turned off, or no installation default)',
} as const;

function Costs() {
  const { from, to, setRange } = useDayRange();
  const range: CostRange = { since: from, until: addDays(to, 1) };
  const period = useCostSummary();
  const costs = useCostGroups(range);
  const [metric, setMetric] = useState<Metric>('tokens');
  const names = useAgentNames((costs.data?.agents ?? []).flatMap((g) => (g.agent_id ? [g.agent_id] : [])));
  const summary = period.data;
  const chosen = METRICS.find((m) => m.value === metric)!;

  const agentName = (agentId: string | null): string => {
    if (agentId === null) return 'No recorded agent';
    const name = names.get(agentId);
    if (name === undefined) return agentId;
    return name ?? `${agentId} (deleted)`;
  };

  // Every day of the range, days without runs at 0 (the API leaves them out).
  const byDay = new Map((costs.data?.days ?? []).map((g) => [g.day, g]));
  const dayBars: Bar[] = [];
  for (let day = range.since; day < range.until && dayBars.length < 400; day = addDays(day, 1)) {
    const g = byDay.get(day) ?? { day, tokens: 0, duration_ms: 0, runs: 0 };
    dayBars.push({ key: day, label: formatDay(day), value: g[metric], detail: `${day}: ${figures(g)}` });
  }
  const agentBars: Bar[] = (costs.data?.agents ?? []).map((g) => ({
    key: g.agent_id ?? 'none',
    label: agentName(g.agent_id),
    value: g[metric],
    detail: `${agentName(g.agent_id)}: ${figures(g)}`,
  }));
  const rangeText = `${formatDay(from)} to ${formatDay(to)} (UTC)`;

  return (
    <PageLayout
      title="Costs"
      description="Tokens and run time of completion runs: this period against the cost threshold, and any range of days per day and per agent. A run counts on the UTC day it ended."
    >
      <Section title={summary ? `This period (${summary.period})` : 'This period'} id="costs-period">
        {period.error !== null && (
          <ErrorBanner error={period.error} title="Could not load this period's costs" onRetry={() => void period.refetch()} />
        )}
        <dl className="stats">
          <StatCard
            label="Tokens"
            value={summary && formatNumber(summary.tokens)}
            loading={period.isLoading}
            tone={summary?.threshold_exceeded ? 'danger' : 'neutral'}
          />
          <StatCard label="Runs" value={summary && formatNumber(summary.runs)} loading={period.isLoading} />
          <StatCard label="Run time" value={summary && formatDuration(summary.duration_ms)} loading={period.isLoading} />
          <StatCard
            label="Threshold"
            value={summary && (summary.threshold_tokens === null ? 'none' : formatNumber(summary.threshold_tokens))}
            loading={period.isLoading}
            hint={summary && SOURCE_TEXT[summary.threshold_source]}
          />
        </dl>
        {summary && summary.threshold_tokens !== null && (
          <ProgressBar
            label={`Tokens of period ${summary.period} against the threshold`}
            value={summary.tokens}
            max={summary.threshold_tokens}
            text={`${formatNumber(summary.tokens)} of ${formatNumber(summary.threshold_tokens)} tokens`}
          />
        )}
        {summary?.threshold_exceeded && (
          <p className="banner banner-warn">The threshold is reached for this period: the event cost.threshold_exceeded was recorded.</p>
        )}
      </Section>

      <Section title="Cost threshold">
        <p className="help">
          When a period's tokens reach it, the event <code>cost.threshold_exceeded</code> is recorded once (webhooks can deliver it).
          Turning it off sets none for this tenant, overriding the installation's default; using the installation default forgets this
          tenant's own setting.
        </p>
        {summary && (
          <ThresholdForm
            key={`${summary.threshold_source}:${summary.threshold_tokens}`}
            current={summary.threshold_tokens}
            source={summary.threshold_source}
          />
        )}
      </Section>

      <Section title="Range">
        <RangeForm key={`${from}:${to}`} from={from} to={to} error={costs.error} onApply={setRange} />
        {costs.error !== null && (
          <ErrorBanner error={costs.error} title="Could not load the costs of this range" onRetry={() => void costs.refetch()} />
        )}
        <MetricChoice value={metric} onChange={setMetric} />
      </Section>

      <Section title="Per day">
        {costs.isLoading && <p className="muted loading">Loading the costs…</p>}
        {costs.data && (
          <>
            <DayBarChart title={`${chosen.label} per day, ${rangeText}`} bars={dayBars} format={chosen.format} />
            {costs.data.days.length === 0 ? (
              <EmptyState title="No runs ended in this range">
                <p>Pick a longer range, or run an agent (Agents → playground): its tokens count here once the run ends.</p>
              </EmptyState>
            ) : (
              <FiguresTable caption="Costs per day" first="Day (UTC)" rows={costs.data.days.map((g) => ({ key: g.day, name: g.day, g }))} />
            )}
          </>
        )}
      </Section>

      <Section title="Per agent">
        {costs.data &&
          (costs.data.agents.length === 0 ? (
            <EmptyState title="No agent ran in this range">
              <p>Pick a longer range, or run an agent: each agent's runs are summed here.</p>
            </EmptyState>
          ) : (
            <>
              <AgentBarChart title={`${chosen.label} per agent, ${rangeText}`} bars={agentBars} format={chosen.format} />
              <FiguresTable
                caption="Costs per agent"
                first="Agent"
                rows={costs.data.agents.map((g) => ({ key: g.agent_id ?? 'none', name: agentName(g.agent_id), g }))}
              />
              {costs.data.agents.some((g) => g.agent_id === null) && (
                <p className="help">"No recorded agent": runs recorded before costs kept their agent.</p>
              )}
            </>
          ))}
      </Section>
    </PageLayout>
  );
}

export function CostsSection() {
  return (
    <Routes>
      <Route index element={<Costs />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
