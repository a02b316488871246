/**
 * A run (/sessions/runs/:traceId, the address other pages link to): its status, timing, cost, error,
 * approvals (decided here while it waits) and answer (as text, never as markup), its event
 * timeline, cancel while it has not ended (asked first), and its workflows in the Temporal UI.
 */
import type { CompletionRun, ToolApproval } from '@combo/client';
import { type ReactNode, useId, useState } from 'react';
import { Link } from 'react-router';
import { hasCode } from '../../api/errors';
import { isLive, useCancelRun, useDecideApproval, useRun } from '../../api/sessions';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { formatNumber, Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { formatDuration, JsonView } from '../events/format';
import { RunStatusBadge, runDuration, sessionPath } from './runs-table';
import { RunTimeline } from './RunTimeline';

/** Only an http(s) address becomes a link (the API checks TEMPORAL_UI_URL too). */
function httpUrl(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function TemporalLink({ run }: { run: CompletionRun }) {
  const href = httpUrl(run.temporal_ui_url);
  if (!href)
    return (
      <p className="sess-temporal-none">
        The service has no <code>TEMPORAL_UI_URL</code>, so runs are not linked to the Temporal UI. Set it to the UI&apos;s address to get a
        link here; meanwhile, look for workflow <code>{run.workflow_id}</code> (search attribute{' '}
        <code>TraceId=&quot;{run.trace_id}&quot;</code>) there.
      </p>
    );
  return (
    <a className="button sess-temporal-link" href={href} target="_blank" rel="noopener noreferrer">
      Open in the Temporal UI<span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function RunFacts({ run }: { run: CompletionRun }) {
  const duration = runDuration(run);
  return (
    <dl className="sess-facts">
      <Fact label="Status">
        <RunStatusBadge status={run.status} />
      </Fact>
      <Fact label="Kind">{run.kind}</Fact>
      <Fact label="Route">
        <code>{run.route}</code>
      </Fact>
      <Fact label="Agent">
        <Link to={`/sessions/by-agent?agent=${encodeURIComponent(run.agent_id)}`}>
          <code>{run.agent_id}</code>
        </Link>
      </Fact>
      <Fact label="Session">
        <Link to={sessionPath(run.session_id)}>
          <code>{run.session_id}</code>
        </Link>
      </Fact>
      <Fact label="Model">
        {run.model ? <code>{run.model}</code> : <span className="muted">{run.offline ? 'none (offline)' : '—'}</span>}
      </Fact>
      <Fact label="Created">
        <Time value={run.created_at} />
      </Fact>
      <Fact label="Started">
        <Time value={run.started_at} empty={run.status === 'queued' ? 'queued' : '—'} />
      </Fact>
      <Fact label="Finished">
        <Time value={run.finished_at} empty={isLive(run) ? 'not yet' : '—'} />
      </Fact>
      <Fact label="Duration">{duration === undefined ? <span className="muted">—</span> : formatDuration(duration)}</Fact>
      <Fact label="Tokens">{run.cost ? formatNumber(run.cost.tokens) : <span className="muted">—</span>}</Fact>
      <Fact label="Stop reason">{run.stop_reason ?? <span className="muted">—</span>}</Fact>
      <Fact label="Requested by">{run.requested_by ? <code>{run.requested_by}</code> : <span className="muted">—</span>}</Fact>
      <Fact label="Workflow id">
        <code>{run.workflow_id}</code>
      </Fact>
      <Fact label="Temporal run id">{run.run_id ? <code>{run.run_id}</code> : <span className="muted">—</span>}</Fact>
    </dl>
  );
}

/** The run's recorded failure (not a failure of this page: no alert). */
function RunError({ error }: { error: NonNullable<CompletionRun['error']> }) {
  return (
    <div className="banner banner-error sess-run-error">
      <p className="banner-title">The run failed</p>
      <p>{error.message}</p>
      <dl className="banner-facts">
        <div>
          <dt>Code</dt>
          <dd>
            <code>{error.code}</code>
          </dd>
        </div>
      </dl>
    </div>
  );
}

const APPROVAL_TONES: Record<ToolApproval['status'], Tone> = {
  pending: 'warn',
  approved: 'ok',
  rejected: 'danger',
  timed_out: 'neutral',
  canceled: 'neutral',
};

function Approvals({ run }: { run: CompletionRun }) {
  const decide = useDecideApproval(run.trace_id);
  const notify = useToast();
  const [rejecting, setRejecting] = useState<ToolApproval | null>(null);
  const [comment, setComment] = useState('');
  const commentId = useId();
  if (run.approvals.length === 0) return null;
  const canDecide = run.status === 'waiting_approval';
  return (
    <Section title="Approvals">
      {decide.error !== null && <ErrorBanner error={decide.error} title="The decision was not taken" />}
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Tool calls that needed a person&apos;s approval</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Arguments</th>
              <th scope="col">Step</th>
              <th scope="col">Status</th>
              <th scope="col">Requested</th>
              <th scope="col">Decision</th>
              <th scope="col" className="cell-actions">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {run.approvals.map((approval) => (
              <tr key={approval.approval_id}>
                <td>
                  <code>{approval.tool}</code>
                </td>
                <td className="sess-approval-args">
                  <JsonView value={approval.arguments} />
                </td>
                <td>{approval.step}</td>
                <td>
                  <StatusBadge tone={APPROVAL_TONES[approval.status]}>{approval.status.replace('_', ' ')}</StatusBadge>
                </td>
                <td>
                  <Time value={approval.requested_at} />
                  {approval.status === 'pending' && (
                    <div className="muted">
                      expires <Time value={approval.expires_at} />
                    </div>
                  )}
                </td>
                <td>
                  {approval.decided_at ? (
                    <>
                      <Time value={approval.decided_at} />
                      {approval.decided_by && (
                        <div className="muted">
                          by <code>{approval.decided_by}</code>
                        </div>
                      )}
                      {approval.comment && <div className="sess-text">{approval.comment}</div>}
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="cell-actions">
                  {canDecide && approval.status === 'pending' && (
                    <span className="sess-actions">
                      <button
                        type="button"
                        className="button button-small button-primary"
                        disabled={decide.isPending}
                        onClick={() =>
                          decide.mutate(
                            { approvalId: approval.approval_id, decision: 'approve' },
                            { onSuccess: () => notify(`${approval.tool} approved: the tool runs now`) },
                          )
                        }
                      >
                        Approve<span className="visually-hidden"> {approval.tool}</span>
                      </button>
                      <button
                        type="button"
                        className="button button-small button-danger-quiet"
                        disabled={decide.isPending}
                        onClick={() => {
                          setComment('');
                          setRejecting(approval);
                        }}
                      >
                        Reject<span className="visually-hidden"> {approval.tool}</span>
                      </button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={rejecting !== null}
        title={`Reject the call of ${rejecting?.tool ?? ''}?`}
        confirmLabel="Reject the call"
        cancelLabel="Keep it waiting"
        onClose={() => setRejecting(null)}
        onConfirm={async () => {
          if (!rejecting) return;
          await decide.mutateAsync({
            approvalId: rejecting.approval_id,
            decision: 'reject',
            ...(comment.trim() ? { comment: comment.trim() } : {}),
          });
          notify(`${rejecting.tool} rejected: the model is told it did not run`);
        }}
      >
        <p>The tool does not run; the model is told a person rejected the call, with your comment, and goes on.</p>
        <label htmlFor={commentId}>Comment for the model (optional)</label>
        <textarea id={commentId} className="sess-comment" value={comment} onChange={(event) => setComment(event.target.value)} rows={3} />
      </ConfirmDialog>
    </Section>
  );
}

function Answer({ run }: { run: CompletionRun }) {
  return (
    <Section title="Answer">
      {run.question !== null && (
        <>
          <h3 className="sess-subheading">Question</h3>
          <div className="sess-text sess-question">{run.question}</div>
          <h3 className="sess-subheading">Answer, as recorded</h3>
        </>
      )}
      {run.answer === null || run.answer === '' ? (
        <p className="muted">
          {isLive(run)
            ? 'No answer yet: the timeline below shows it as it is written.'
            : run.status === 'failed'
              ? 'The run failed before answering.'
              : 'The run recorded no answer.'}
        </p>
      ) : (
        // Markdown shown as its text: React escapes it, so nothing in an answer becomes markup.
        <div className="sess-text sess-answer">{run.answer}</div>
      )}
      {run.reference.length > 0 && (
        <>
          <h3 className="sess-subheading">References</h3>
          <ol className="sess-references">
            {run.reference.map((ref) => (
              <li key={`${ref.index}-${ref.chunk_id}`}>
                [{ref.index}] {ref.doc_name} <span className="muted">(similarity {ref.similarity.toFixed(2)})</span>
                <div className="sess-text sess-reference-text">{ref.content}</div>
              </li>
            ))}
          </ol>
        </>
      )}
    </Section>
  );
}

export function RunPage({ traceId }: { traceId: string }) {
  const run = useRun(traceId);
  const cancel = useCancelRun();
  const notify = useToast();
  const [confirming, setConfirming] = useState(false);
  const data = run.data;

  if (run.error && !data)
    return (
      <PageLayout title="Run">
        <ErrorBanner
          error={run.error}
          title={hasCode(run.error, 10004) ? `There is no run ${traceId}` : 'Could not load the run'}
          onRetry={() => void run.refetch()}
        />
        <p>
          <Link to="/sessions">All runs</Link>
        </p>
      </PageLayout>
    );

  return (
    <PageLayout
      title={`Run ${traceId}`}
      description={
        <>
          <Link to="/sessions">Sessions &amp; runs</Link> › one run: what it did, step by step.{' '}
          <CopyButton value={traceId} label="the trace id" />
        </>
      }
      actions={
        data &&
        isLive(data) && (
          <button type="button" className="button button-danger-quiet" onClick={() => setConfirming(true)}>
            Cancel run
          </button>
        )
      }
    >
      {run.error !== null && <ErrorBanner error={run.error} title="Could not refresh the run" onRetry={() => void run.refetch()} />}
      {!data ? (
        <p className="muted loading">Loading the run…</p>
      ) : (
        <>
          <Section title="Status">
            <div className="sess-temporal">
              <TemporalLink run={data} />
            </div>
            {data.error && <RunError error={data.error} />}
            <RunFacts run={data} />
          </Section>
          <Approvals run={data} />
          <Answer run={data} />
          <RunTimeline traceId={traceId} live={isLive(data)} />
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title="Cancel this run?"
        confirmLabel="Cancel the run"
        cancelLabel="Keep it running"
        onClose={() => setConfirming(false)}
        onConfirm={async () => {
          const ended = await cancel.mutateAsync(traceId);
          notify(`Run ${ended.status === 'canceled' ? 'canceled' : `ended: ${ended.status}`}`);
        }}
      >
        <p>
          The run stops where it is: the model or tool call in flight is abandoned, and what it had written so far is recorded as its answer
          (marked canceled). This cannot be undone.
        </p>
      </ConfirmDialog>
    </PageLayout>
  );
}
