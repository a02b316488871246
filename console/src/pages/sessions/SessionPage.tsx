/**
 * A session (/sessions/:sessionId): what it is, its transcript (messages oldest first, paged on the
 * server; Markdown answers shown as the text they are, never as markup) and its runs.
 */
import type { Message } from '@combo/client';
import { Link } from 'react-router';
import { hasCode } from '../../api/errors';
import { useSessionRecord, useSessionRuns, useTranscript } from '../../api/sessions';
import { CopyButton } from '../../components/CopyButton';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { Pagination } from '../../components/Pagination';
import { Markdown } from '../../components/Markdown';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { runColumns, runPath } from './runs-table';

const ROLE_LABELS: Record<Message['role'], string> = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool' };

function MessageItem({ message }: { message: Message }) {
  const labels = Object.entries(message.metadata);
  return (
    <li className={`sess-message sess-message-${message.role}`}>
      <div className="sess-message-head">
        <span className="sess-message-role">{ROLE_LABELS[message.role]}</span>
        <Time value={message.created_at} />
        {labels.map(([key, value]) =>
          key === 'trace_id' ? (
            <Link key={key} to={runPath(value)} className="sess-message-run">
              run {value}
            </Link>
          ) : (
            <span key={key} className="badge badge-neutral">
              {key}: {value}
            </span>
          ),
        )}
      </div>
      {/* The agent's Markdown is drawn (HTML in it stays text); anyone else's words are shown as typed. */}
      {message.role === 'assistant' ? (
        <div className="sess-text sess-text-markdown">
          <Markdown text={message.content} />
        </div>
      ) : (
        <div className="sess-text">{message.content}</div>
      )}
    </li>
  );
}

function Transcript({ sessionId }: { sessionId: string }) {
  const messages = useTranscript(sessionId);
  if (messages.error && messages.items.length === 0)
    return <ErrorBanner error={messages.error} title="Could not load the transcript" onRetry={messages.refetch} />;
  if (messages.isLoading) return <p className="muted loading">Loading the transcript…</p>;
  if (messages.total === 0)
    return (
      <EmptyState title="No messages yet">
        <p>The question and answer of every run are recorded here, and messages posted to the session.</p>
      </EmptyState>
    );
  return (
    <>
      {messages.error !== null && (
        <ErrorBanner error={messages.error} title="Could not refresh the transcript" onRetry={messages.refetch} />
      )}
      <ol className="sess-transcript" aria-label="Transcript, oldest first" aria-busy={messages.isFetching}>
        {messages.items.map((message) => (
          <MessageItem key={message.message_id} message={message} />
        ))}
      </ol>
      <Pagination list={messages} label="the transcript" />
    </>
  );
}

const RUN_COLUMNS = runColumns({ withSession: false });

export function SessionPage({ sessionId }: { sessionId: string }) {
  const session = useSessionRecord(sessionId);
  const runs = useSessionRuns(sessionId);
  const data = session.data;
  const title = data?.name ? `Session ${data.name}` : 'Session';

  if (session.error)
    return (
      <PageLayout title="Session">
        <ErrorBanner
          error={session.error}
          title={hasCode(session.error, 10004) ? `There is no session ${sessionId}` : 'Could not load the session'}
          onRetry={() => void session.refetch()}
        />
        <p>
          <Link to="/sessions/by-agent">All sessions</Link>
        </p>
      </PageLayout>
    );

  return (
    <PageLayout
      title={title}
      description={
        <>
          <Link to="/sessions">Sessions &amp; runs</Link> › a session&apos;s transcript and runs.
        </>
      }
    >
      <Section title="About this session">
        {!data ? (
          <p className="muted loading">Loading the session…</p>
        ) : (
          <dl className="sess-facts">
            <div>
              <dt>Session id</dt>
              <dd>
                <code>{data.session_id}</code> <CopyButton value={data.session_id} label="the session id" />
              </dd>
            </div>
            <div>
              <dt>Agent</dt>
              <dd>
                <Link to={`/sessions/by-agent?agent=${encodeURIComponent(data.agent_id)}`}>
                  <code>{data.agent_id}</code>
                </Link>
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge tone={data.status === 'active' ? 'ok' : 'neutral'}>{data.status}</StatusBadge>
              </dd>
            </div>
            <div>
              <dt>User</dt>
              <dd>
                <code>{data.user_id}</code>
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <Time value={data.created_at} />
              </dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>
                <Time value={data.updated_at} />
              </dd>
            </div>
            {data.archived_at && (
              <div>
                <dt>Archived</dt>
                <dd>
                  <Time value={data.archived_at} />
                </dd>
              </div>
            )}
          </dl>
        )}
      </Section>
      <Section title="Transcript">
        <Transcript sessionId={sessionId} />
      </Section>
      <Section
        title="Runs of this session"
        actions={
          <button type="button" className="button button-small" onClick={runs.refetch} disabled={runs.isFetching}>
            {runs.isFetching ? 'Refreshing…' : 'Refresh'}
          </button>
        }
      >
        <DataTable
          caption="Runs of this session"
          columns={RUN_COLUMNS}
          list={runs}
          rowKey={(run) => run.trace_id}
          empty={
            <EmptyState title="No runs on this session yet">
              <p>
                Ask the agent a question on this session (<code>POST /v1/combo/agents/{'{agent_id}'}/completions</code> with its{' '}
                <code>session_id</code>, or the playground under <Link to="/agents">Agents</Link>).
              </p>
            </EmptyState>
          }
        />
      </Section>
    </PageLayout>
  );
}
