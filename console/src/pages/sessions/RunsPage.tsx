/**
 * The section's landing page: the tenant's runs, newest first (`GET /v1/combo/completions`), paged
 * and filtered on the server by status, kind and creation time; the filters live in the address
 * (`/sessions?status=failed`), so other pages can link to a filtered list.
 */
import { type RunKind, RunKindValues, type RunStatus, RunStatusValues } from '@combo/client';
import { useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { fieldOf } from '../../api/errors';
import { type RunFilter, useRuns } from '../../api/sessions';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FilterBar } from '../../components/FilterBar';
import { Section } from '../../components/PageLayout';
import { TimeRangeFields } from '../../components/TimeRangeFields';
import { isoRangeOf, localRangeOf } from '../../local-time';
import { runColumns, STATUS_LABELS } from './runs-table';

const isStatus = (value: string | null): value is RunStatus => value !== null && (RunStatusValues as readonly string[]).includes(value);
const isKind = (value: string | null): value is RunKind => value !== null && (RunKindValues as readonly string[]).includes(value);

function filterOf(params: URLSearchParams): RunFilter {
  const status = params.get('status');
  const kind = params.get('kind');
  const since = params.get('since');
  const until = params.get('until');
  return {
    ...(isStatus(status) ? { status } : {}),
    ...(isKind(kind) ? { kind } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}

function RunFilters({ filter, onApply, invalid }: { filter: RunFilter; onApply: (filter: RunFilter) => void; invalid?: string }) {
  const [status, setStatus] = useState<string>(filter.status ?? '');
  const [kind, setKind] = useState<string>(filter.kind ?? '');
  const [range, setRange] = useState(localRangeOf(filter));
  const ids = { status: useId(), kind: useId() };
  const apply = () => onApply({ ...(isStatus(status) ? { status } : {}), ...(isKind(kind) ? { kind } : {}), ...isoRangeOf(range) });
  return (
    <FilterBar label="runs" active={Object.keys(filter).length > 0} onApply={apply} onClear={() => onApply({})}>
      <div className="field">
        <label htmlFor={ids.status}>Status</label>
        <select id={ids.status} value={status} onChange={(e) => setStatus(e.target.value)} aria-invalid={invalid === 'status'}>
          <option value="">Any status</option>
          {RunStatusValues.map((value) => (
            <option key={value} value={value}>
              {STATUS_LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.kind}>Kind</label>
        <select id={ids.kind} value={kind} onChange={(e) => setKind(e.target.value)} aria-invalid={invalid === 'kind'}>
          <option value="">Any kind</option>
          <option value="chat">chat (API completions)</option>
          <option value="trigger">trigger (event triggers)</option>
          <option value="cron">cron (cron jobs)</option>
        </select>
      </div>
      <TimeRangeFields value={range} onChange={setRange} labels={{ since: 'Created from', until: 'Created before' }} invalid={invalid} />
    </FilterBar>
  );
}

const COLUMNS = runColumns();

export function RunsPage() {
  const [params, setParams] = useSearchParams();
  const filter = filterOf(params);
  const runs = useRuns(filter);
  const filtered = Object.keys(filter).length > 0;
  return (
    <Section
      title="Runs"
      actions={
        <button type="button" className="button button-small" onClick={runs.refetch} disabled={runs.isFetching}>
          {runs.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <p className="help">
        Every run of the tenant, newest first: completions asked through the API (chat), and runs of event triggers and cron jobs. Open one
        for its event timeline and its workflow in the Temporal UI. Times are your local time.
      </p>
      <RunFilters
        key={params.toString()}
        filter={filter}
        onApply={(next) => setParams(Object.fromEntries(Object.entries(next).filter((entry): entry is [string, string] => !!entry[1])))}
        invalid={fieldOf(runs.error, 'query')}
      />
      <DataTable
        caption="Runs"
        columns={COLUMNS}
        list={runs}
        rowKey={(run) => run.trace_id}
        empty={
          <EmptyState title={filtered ? 'No runs match these filters' : 'No runs yet'}>
            <p>
              {filtered
                ? 'Pick another status or kind, widen the time range, or clear the filters.'
                : 'A run starts when someone asks an agent a question (POST /v1/combo/agents/{agent_id}/completions, or the playground under Agents), or when an event trigger or cron job fires.'}
            </p>
          </EmptyState>
        }
      />
    </Section>
  );
}
