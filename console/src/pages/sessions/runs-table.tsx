/** How a run is shown in lists and on its page: its status badge, its outcome, the columns of run tables. */
import type { CompletionRun, RunStatus } from '@combo/client';
import { Link } from 'react-router';
import type { Column } from '../../components/DataTable';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatNumber, Time } from '../../components/Time';
import { formatDuration } from '../events/format';

const STATUS_TONES: Record<RunStatus, Tone> = {
  queued: 'neutral',
  running: 'info',
  waiting_approval: 'warn',
  completed: 'ok',
  failed: 'danger',
  canceled: 'neutral',
};

/** The status words as people read them. */
export const STATUS_LABELS: Record<RunStatus, string> = {
  queued: 'queued',
  running: 'running',
  waiting_approval: 'waiting for approval',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
};

export function RunStatusBadge({ status }: { status: RunStatus }) {
  return <StatusBadge tone={STATUS_TONES[status]}>{STATUS_LABELS[status]}</StatusBadge>;
}

/** From the request to the recorded answer (the run's cost), else from its creation to its end. */
export function runDuration(run: CompletionRun): number | undefined {
  if (run.cost) return run.cost.duration_ms;
  if (run.finished_at) return Date.parse(run.finished_at) - Date.parse(run.created_at);
  return undefined;
}

export const runPath = (traceId: string) => `/sessions/runs/${encodeURIComponent(traceId)}`;
export const sessionPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}`;

function Outcome({ run }: { run: CompletionRun }) {
  if (run.error)
    return (
      <span className="sess-outcome-error" title={run.error.message}>
        <code>{run.error.code}</code> {run.error.message}
      </span>
    );
  if (run.stop_reason) return <span>{run.stop_reason.replace('_', ' ')}</span>;
  return <span className="muted">—</span>;
}

/** The columns of a list of runs; `withSession: false` on a session's own page. */
export function runColumns({ withSession = true }: { withSession?: boolean } = {}): Column<CompletionRun>[] {
  return [
    {
      key: 'run',
      header: 'Run',
      render: (run) => (
        <Link to={runPath(run.trace_id)} className="sess-id-link">
          {run.trace_id}
        </Link>
      ),
    },
    {
      key: 'question',
      header: 'Question',
      render: (run) =>
        run.question === null ? (
          <span className="muted">—</span>
        ) : (
          <span className="sess-question-cell" title={run.question.slice(0, 500)}>
            {run.question}
          </span>
        ),
    },
    { key: 'status', header: 'Status', render: (run) => <RunStatusBadge status={run.status} /> },
    { key: 'kind', header: 'Kind', render: (run) => run.kind },
    ...(withSession
      ? [
          {
            key: 'session',
            header: 'Session',
            render: (run: CompletionRun) => (
              <Link to={sessionPath(run.session_id)} className="sess-id-link">
                {run.session_id}
              </Link>
            ),
          },
        ]
      : []),
    { key: 'created', header: 'Created', render: (run) => <Time value={run.created_at} /> },
    {
      key: 'cost',
      header: 'Cost',
      kind: 'numeric',
      render: (run) => {
        const ms = runDuration(run);
        return (
          <>
            {run.cost ? <span className="sess-nowrap">{formatNumber(run.cost.tokens)} tokens</span> : <span className="muted">—</span>}
            {ms !== undefined && <div className="muted">{formatDuration(ms)}</div>}
          </>
        );
      },
    },
    { key: 'outcome', header: 'Outcome', render: (run) => <Outcome run={run} /> },
  ];
}
