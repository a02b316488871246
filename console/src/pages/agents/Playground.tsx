/**
 * An agent's playground: a chat on a new session or one of the agent's sessions (its last messages
 * shown first), on the agent's default route or one picked from the scenarios and processors. The
 * answer streams in as it is written; thinking phases and tool calls with their results open up
 * (<details>); a tool call that needs approval is approved or rejected here; Cancel cancels the
 * run; each finished answer says why it stopped and what it cost, and links to its run under
 * Sessions & runs and to its workflow in the Temporal UI.
 */
import type { Message, Session } from '@combo/client';
import { type FormEvent, type KeyboardEvent, useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import { type RouteChoice, useAgent, useRoutes } from '../../api/agents';
import { type Activity, type Turn, useAgentSessions, useChat, useTranscript } from '../../api/agents-playground';
import { hasCode } from '../../api/errors';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { StatusBadge, type Tone } from '../../components/StatusBadge';
import { Markdown } from '../../components/Markdown';
import { formatNumber, Time } from '../../components/Time';

const DEFAULT_ROUTE = '@chat@llm@default@';

const json = (value: unknown) => (value === undefined ? '(nothing)' : JSON.stringify(value, null, 2));

function phaseText(activity: Extract<Activity, { kind: 'thinking' }>): string {
  const step =
    activity.step !== undefined
      ? ` (step ${activity.step}${activity.attempt && activity.attempt > 1 ? `, attempt ${activity.attempt}` : ''})`
      : '';
  switch (activity.phase) {
    case 'accepted':
      return `Accepted${activity.route ? ` on ${activity.route}` : ''}`;
    case 'queued':
      return 'Queued behind an earlier run of the session';
    case 'retrieval':
      return 'Searching the knowledge bases';
    case 'model':
      return `Asking the model${step}`;
    case 'model_retry':
      return `Asking the model again${step}`;
    default:
      return activity.phase;
  }
}

const STOP_REASONS: Record<string, { tone: Tone; text: string }> = {
  answered: { tone: 'ok', text: 'answered' },
  step_limit: { tone: 'warn', text: 'stopped at the step limit' },
  token_limit: { tone: 'warn', text: 'stopped at the token limit' },
  canceled: { tone: 'neutral', text: 'canceled' },
  failed: { tone: 'danger', text: 'failed' },
};

const APPROVAL_TONES: Record<string, Tone> = {
  pending: 'warn',
  approved: 'ok',
  rejected: 'danger',
  timed_out: 'danger',
  canceled: 'neutral',
};

interface DecideInput {
  approvalId: string;
  decision: 'approve' | 'reject';
  comment: string;
}

function ApprovalCard({
  approval,
  onDecide,
  deciding,
}: {
  approval: Extract<Activity, { kind: 'approval' }>;
  onDecide: (input: DecideInput) => void;
  deciding: boolean;
}) {
  const [comment, setComment] = useState('');
  const titleId = useId();
  const commentId = useId();
  const pending = approval.status === 'pending';
  return (
    <div className={`pg-approval${pending ? ' pg-approval-pending' : ''}`} role="group" aria-labelledby={titleId}>
      <p id={titleId} className="pg-approval-title">
        {pending ? 'Approval needed' : 'Approval'}: the model calls <code>{approval.tool}</code>{' '}
        <StatusBadge tone={APPROVAL_TONES[approval.status] ?? 'neutral'}>{approval.status.replace('_', ' ')}</StatusBadge>
      </p>
      <pre className="pg-json" aria-label={`Arguments of ${approval.tool}`}>
        {json(approval.args)}
      </pre>
      {approval.comment && <p className="muted">Comment: {approval.comment}</p>}
      {pending && (
        <div className="pg-approval-actions">
          <p className="muted">
            The run waits until <Time value={approval.expiresAt} />; nobody deciding by then counts as rejected.
          </p>
          <div className="pg-approval-form">
            <div className="field">
              <label htmlFor={commentId}>Comment (optional)</label>
              <input id={commentId} value={comment} maxLength={2000} onChange={(event) => setComment(event.target.value)} />
            </div>
            <button
              type="button"
              className="button button-primary"
              disabled={deciding}
              onClick={() => onDecide({ approvalId: approval.approvalId, decision: 'approve', comment })}
            >
              Approve<span className="visually-hidden"> {approval.tool}</span>
            </button>
            <button
              type="button"
              className="button button-danger-quiet"
              disabled={deciding}
              onClick={() => onDecide({ approvalId: approval.approvalId, decision: 'reject', comment })}
            >
              Reject<span className="visually-hidden"> {approval.tool}</span>
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

/** Consecutive thinking phases as one group. */
type Shown = { kind: 'phases'; key: string; phases: Extract<Activity, { kind: 'thinking' }>[] } | Exclude<Activity, { kind: 'thinking' }>;

function grouped(activity: Activity[]): Shown[] {
  const out: Shown[] = [];
  for (const item of activity) {
    const last = out.at(-1);
    if (item.kind === 'thinking') {
      if (last?.kind === 'phases') last.phases.push(item);
      else out.push({ kind: 'phases', key: item.key, phases: [item] });
    } else out.push(item);
  }
  return out;
}

function TurnView({ turn, onDecide, deciding }: { turn: Turn; onDecide: (turn: Turn, input: DecideInput) => void; deciding: boolean }) {
  const running = turn.state !== 'ended';
  const stop = turn.stopReason ? STOP_REASONS[turn.stopReason] : undefined;
  return (
    <li className="pg-turn">
      {turn.question ? (
        <div className="pg-message pg-user">
          <p className="pg-role">You</p>
          <p className="pg-text">{turn.question}</p>
        </div>
      ) : (
        <p className="muted pg-resumed">A run was going on this session when you picked it: followed from its start.</p>
      )}
      <div className="pg-message pg-agent" aria-busy={running}>
        <p className="pg-role">Agent{turn.route && <code className="pg-route"> {turn.route}</code>}</p>
        {grouped(turn.activity).map((item) => {
          if (item.kind === 'phases') {
            const last = item.phases.at(-1)!;
            return (
              <details key={item.key} className="pg-activity pg-thinking">
                <summary>
                  Thinking: {phaseText(last)}
                  {item.phases.length > 1 && <span className="muted"> · {item.phases.length} phases</span>}
                </summary>
                <ol>
                  {item.phases.map((phase) => (
                    <li key={phase.key}>{phaseText(phase)}</li>
                  ))}
                </ol>
              </details>
            );
          }
          if (item.kind === 'tool')
            return (
              <details key={item.key} className="pg-activity pg-tool">
                <summary>
                  Tool call <code>{item.tool}</code>
                  <span className="muted"> · {item.done ? 'with its result' : 'running…'}</span>
                </summary>
                <p className="pg-label">Arguments</p>
                <pre className="pg-json">{json(item.args)}</pre>
                {item.done && (
                  <>
                    <p className="pg-label">Result</p>
                    <pre className="pg-json">{json(item.result)}</pre>
                  </>
                )}
              </details>
            );
          return <ApprovalCard key={item.key} approval={item} deciding={deciding} onDecide={(input) => onDecide(turn, input)} />;
        })}
        {(turn.answer || running) && (
          <div className="pg-text pg-answer" data-testid="answer">
            {turn.answer ? (
              <Markdown text={turn.answer} />
            ) : (
              <span className="muted">{turn.state === 'waiting_approval' ? 'Waiting for a decision…' : '…'}</span>
            )}
          </div>
        )}
        {turn.error !== undefined && (
          <ErrorBanner error={turn.error} title={turn.traceId ? 'The run failed' : 'The question was refused'} />
        )}
        {!running && (
          <div className="pg-run-facts" data-testid="run-facts">
            {stop && <StatusBadge tone={stop.tone}>{stop.text}</StatusBadge>}
            {turn.cost && (
              <span>
                {formatNumber(turn.cost.tokens)} tokens · {(turn.cost.duration_ms / 1000).toFixed(1)} s
              </span>
            )}
            {turn.traceId && (
              <Link to={`/sessions/runs/${turn.traceId}`}>
                Run <code>{turn.traceId}</code>
              </Link>
            )}
            {turn.run?.temporal_ui_url && (
              <a href={turn.run.temporal_ui_url} target="_blank" rel="noreferrer">
                Open in the Temporal UI<span className="visually-hidden"> (new tab)</span>
              </a>
            )}
          </div>
        )}
      </div>
    </li>
  );
}

const ROLES: Record<Message['role'], string> = { user: 'You', assistant: 'Agent', system: 'System', tool: 'Tool' };

function HistoryView({ message }: { message: Message }) {
  return (
    <li className={`pg-turn pg-history`}>
      <div className={`pg-message ${message.role === 'user' ? 'pg-user' : 'pg-agent'}`}>
        <p className="pg-role">
          {ROLES[message.role]} <Time value={message.created_at} />
          {message.metadata.canceled === 'true' && <span className="muted"> · canceled</span>}
        </p>
        <p className="pg-text">{message.content}</p>
      </div>
    </li>
  );
}

function sessionLabel(session: Session): string {
  const when = new Date(session.created_at).toLocaleString();
  return `${session.name ?? session.session_id} · ${when}${session.status === 'archived' ? ' (archived)' : ''}`;
}

function statusText(turn: Turn | undefined): string {
  if (!turn) return '';
  switch (turn.state) {
    case 'sending':
      return 'Sending the question…';
    case 'running':
      return 'The agent is answering…';
    case 'waiting_approval':
      return 'The run waits for your approval of a tool call.';
    case 'ended':
      if (turn.error !== undefined) return 'The run failed.';
      if (turn.stopReason === 'canceled') return 'The run was canceled.';
      return turn.cost
        ? `Answered: ${formatNumber(turn.cost.tokens)} tokens in ${(turn.cost.duration_ms / 1000).toFixed(1)} s.`
        : 'Answered.';
  }
}

function RouteHelp({ id, route, routes, fallback }: { id: string; route: string; routes: RouteChoice[] | undefined; fallback: string }) {
  const taken = route || fallback;
  const shown = routes?.find((r) => r.route === taken);
  return (
    <dl id={id} className="pg-route-help">
      {shown ? (
        shown.parts.map((part, index) => (
          <div key={index}>
            <dt>
              <code>{part.name}</code>
            </dt>
            <dd>{part.description}</dd>
          </div>
        ))
      ) : (
        <div>
          <dt>Route</dt>
          <dd>
            <code>{taken}</code>
          </dd>
        </div>
      )}
    </dl>
  );
}

export function Playground() {
  const { agentId = '' } = useParams();
  const agent = useAgent(agentId);
  const sessions = useAgentSessions(agentId);
  const routes = useRoutes();
  const chat = useChat(agentId);
  const [sessionId, setSessionId] = useState<string | null>(null);
  /** The session whose earlier messages are shown (one picked, not one created here) and how often it was picked. */
  const [history, setHistory] = useState<{ sessionId: string | null; pick: number }>({ sessionId: null, pick: 0 });
  const transcript = useTranscript(history.sessionId, history.pick);
  const [route, setRoute] = useState('');
  const [question, setQuestion] = useState('');
  const ids = { session: useId(), route: useId(), routeHelp: useId(), question: useId(), questionHelp: useId() };

  if (hasCode(agent.error, 10004))
    return (
      <PageLayout title="Agent not found">
        <EmptyState title={`There is no agent ${agentId}`} action={<Link to="/agents">All agents</Link>}>
          <p>It may have been deleted. Pick one from the list.</p>
        </EmptyState>
      </PageLayout>
    );

  const defaultRoute = agent.data?.default_route ?? DEFAULT_ROUTE;
  const current = chat.turns.at(-1);
  const runningTrace = current && current.state !== 'ended' ? current.traceId : undefined;

  const pickSession = (value: string) => {
    chat.reset();
    chat.cancel.reset();
    const picked = value === '' ? null : value;
    setSessionId(picked);
    setHistory((before) => ({ sessionId: picked, pick: before.pick + 1 }));
    if (picked) void chat.resume(picked);
  };

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const text = question.trim();
    if (!text || chat.busy) return;
    setQuestion('');
    chat.cancel.reset();
    void chat.send(text, {
      sessionId,
      ...(route ? { route } : {}),
      onSession: (session) => setSessionId(session.session_id),
    });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) send();
  };

  const scenarios = [...new Set(routes.data?.map((r) => r.scenario) ?? [])];
  const sessionItems = sessions.data?.items ?? [];
  const knownSession = sessionId === null || sessionItems.some((s) => s.session_id === sessionId);

  return (
    <PageLayout
      title={agent.data ? `Playground: ${agent.data.name}` : 'Playground'}
      description="Ask the agent: the answer streams in as it is written. Tool calls that need a person wait for your decision here."
      actions={
        <Link className="button agents-link-button" to={`/agents/${agentId}`}>
          Edit agent
        </Link>
      }
    >
      <p className="agents-back">
        <Link to="/agents">← All agents</Link>
      </p>
      {agent.error !== null && <ErrorBanner error={agent.error} title="Could not load the agent" onRetry={() => void agent.refetch()} />}
      <Section title="Conversation">
        <div className="form-row pg-controls">
          <div className="field">
            <label htmlFor={ids.session}>Session</label>
            <select id={ids.session} value={sessionId ?? ''} disabled={chat.busy} onChange={(event) => pickSession(event.target.value)}>
              <option value="">New session</option>
              {!knownSession && sessionId && <option value={sessionId}>{sessionId} (new)</option>}
              {sessionItems.map((session) => (
                <option key={session.session_id} value={session.session_id} disabled={session.status === 'archived'}>
                  {sessionLabel(session)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.route}>Route</label>
            <select
              id={ids.route}
              value={route}
              disabled={chat.busy}
              aria-describedby={ids.routeHelp}
              onChange={(event) => setRoute(event.target.value)}
            >
              <option value="">Agent default ({defaultRoute})</option>
              {scenarios.map((scenario) => (
                <optgroup key={scenario} label={scenario}>
                  {routes.data
                    ?.filter((r) => r.scenario === scenario)
                    .map((r) => (
                      <option key={r.route} value={r.route}>
                        {r.route}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
          </div>
          {sessionId && (
            <p className="field-action pg-session-link">
              <Link to={`/sessions/${sessionId}`}>This session under Sessions &amp; runs</Link>
            </p>
          )}
        </div>
        <RouteHelp id={ids.routeHelp} route={route} routes={routes.data} fallback={defaultRoute} />
        {sessions.error !== null && <ErrorBanner error={sessions.error} title="Could not list the agent's sessions" />}
        {routes.error !== null && <ErrorBanner error={routes.error} title="Could not list the scenarios and processors" />}
        {transcript.error !== null && <ErrorBanner error={transcript.error} title="Could not read the session's messages" />}

        {history.sessionId !== null && transcript.isLoading && <p className="muted loading">Loading the session's messages…</p>}
        {transcript.data && transcript.data.total > transcript.data.messages.length && (
          <p className="muted">
            The last {transcript.data.messages.length} of {formatNumber(transcript.data.total)} messages;{' '}
            <Link to={`/sessions/${history.sessionId}`}>the whole transcript</Link> is under Sessions &amp; runs.
          </p>
        )}
        {(transcript.data?.messages.length ?? 0) + chat.turns.length === 0 ? (
          !transcript.isLoading && (
            <EmptyState title={sessionId ? 'No messages in this session yet' : 'A new conversation'}>
              <p>Write a question below and send it. {sessionId ? '' : 'A new session is created for it.'}</p>
            </EmptyState>
          )
        ) : (
          <ol className="pg-transcript" aria-label="Conversation">
            {history.sessionId === sessionId &&
              transcript.data?.messages.map((message) => <HistoryView key={message.message_id} message={message} />)}
            {chat.turns.map((turn) => (
              <TurnView
                key={turn.id}
                turn={turn}
                deciding={chat.decide.isPending}
                onDecide={(t, input) => t.traceId && chat.decide.mutate({ ...input, turnId: t.id, traceId: t.traceId })}
              />
            ))}
          </ol>
        )}
        {chat.decide.error !== null && <ErrorBanner error={chat.decide.error} title="Could not record the decision" />}

        <form className="pg-composer" onSubmit={send} aria-label="Ask the agent">
          <div className="field pg-question">
            <label htmlFor={ids.question}>Message</label>
            <textarea
              id={ids.question}
              rows={3}
              value={question}
              maxLength={32_000}
              aria-describedby={ids.questionHelp}
              onChange={(event) => setQuestion(event.target.value)}
              onKeyDown={onKeyDown}
            />
            <p id={ids.questionHelp} className="agents-help">
              Ctrl+Enter sends.
            </p>
          </div>
          <div className="pg-composer-actions">
            <button type="submit" className="button button-primary" disabled={chat.busy || question.trim() === ''}>
              Send
            </button>
            {chat.busy && (
              <button
                type="button"
                className="button button-danger-quiet"
                disabled={!runningTrace || chat.cancel.isPending}
                onClick={() => runningTrace && chat.cancel.mutate(runningTrace)}
              >
                {chat.cancel.isPending ? 'Canceling…' : 'Cancel run'}
              </button>
            )}
          </div>
        </form>
        {chat.cancel.error !== null && <ErrorBanner error={chat.cancel.error} title="Could not cancel the run" />}
        <p className="pg-status" role="status">
          {statusText(current)}
        </p>
      </Section>
    </PageLayout>
  );
}
