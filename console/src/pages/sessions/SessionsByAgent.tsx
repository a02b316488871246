/**
 * Sessions (/sessions/by-agent, `?agent=…` for one agent's): every session of the tenant, newest
 * first, paged on the server (`GET /v1/combo/sessions`, `agent_id` once an agent is chosen); each
 * opens its transcript.
 */
import type { Session } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useAgentChoices, useSessions } from '../../api/sessions';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { Section } from '../../components/PageLayout';
import { StatusBadge } from '../../components/StatusBadge';
import { Time } from '../../components/Time';
import { sessionPath } from './runs-table';

/** The table's columns; agents are shown by name where the newest 100 name them (else by id). */
function columnsOf(agentNames: Map<string, string>): Column<Session>[] {
  return [
    {
      key: 'session',
      header: 'Name',
      render: (session) => (
        <Link to={sessionPath(session.session_id)}>{session.name ? session.name : <span className="muted">unnamed</span>}</Link>
      ),
    },
    { key: 'id', header: 'Session id', render: (session) => <code>{session.session_id}</code> },
    {
      key: 'status',
      header: 'Status',
      render: (session) => <StatusBadge tone={session.status === 'active' ? 'ok' : 'neutral'}>{session.status}</StatusBadge>,
    },
    {
      key: 'agent',
      header: 'Agent',
      render: (session) => (
        <Link to={`/agents/${session.agent_id}`} title={session.agent_id}>
          {agentNames.get(session.agent_id) ?? <code>{session.agent_id}</code>}
        </Link>
      ),
    },
    { key: 'user', header: 'User', render: (session) => <code>{session.user_id}</code> },
    { key: 'created', header: 'Created', render: (session) => <Time value={session.created_at} /> },
    { key: 'updated', header: 'Updated', render: (session) => <Time value={session.updated_at} /> },
  ];
}

function SessionList({ agentId }: { agentId: string | undefined }) {
  const sessions = useSessions(agentId);
  const agents = useAgentChoices();
  const columns = columnsOf(new Map((agents.data?.items ?? []).map((agent) => [agent.agent_id, agent.name])));
  return (
    <DataTable
      caption={agentId ? `Sessions of ${agentId}` : 'Sessions of every agent'}
      columns={agentId ? columns.filter((c) => c.key !== 'agent') : columns}
      list={sessions}
      rowKey={(session) => session.session_id}
      empty={
        <EmptyState title={agentId ? 'This agent has no sessions yet' : 'No sessions yet'}>
          <p>
            A session is created with <code>POST /v1/combo/agents/{agentId ?? '{agent_id}'}/sessions</code>, or by starting a chat in an
            agent&apos;s playground under <Link to="/agents">Agents</Link>.
          </p>
        </EmptyState>
      }
    />
  );
}

function AgentChooser({ agentId, onChoose }: { agentId: string; onChoose: (agentId: string) => void }) {
  const agents = useAgentChoices();
  const [choice, setChoice] = useState(agentId);
  const [typed, setTyped] = useState('');
  const ids = { agent: useId(), typed: useId() };
  const more = agents.data !== undefined && agents.data.total > agents.data.items.length;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChoose(typed.trim() || choice);
  };

  if (agents.error) return <ErrorBanner error={agents.error} title="Could not load the agents" onRetry={() => void agents.refetch()} />;
  if (agents.isLoading || !agents.data) return <p className="muted loading">Loading agents…</p>;
  if (agents.data.total === 0)
    return (
      <EmptyState title="No agents yet">
        <p>
          Sessions belong to an agent: create one under <Link to="/agents">Agents</Link>, then start a session with it.
        </p>
      </EmptyState>
    );
  // An agent named in the address but not among those listed is still offered (it may be older than the newest 100).
  const listed = agents.data.items.some((agent) => agent.agent_id === choice);
  return (
    <form className="form-row sess-chooser" onSubmit={submit} aria-label="Choose an agent">
      <div className="field">
        <label htmlFor={ids.agent}>Agent</label>
        <select id={ids.agent} value={choice} onChange={(event) => setChoice(event.target.value)}>
          <option value="">Every agent</option>
          {!listed && choice && <option value={choice}>{choice}</option>}
          {agents.data.items.map((agent) => (
            <option key={agent.agent_id} value={agent.agent_id}>
              {agent.name} ({agent.agent_id})
            </option>
          ))}
        </select>
      </div>
      {more && (
        <div className="field">
          <label htmlFor={ids.typed}>Or an agent id</label>
          <input id={ids.typed} value={typed} onChange={(event) => setTyped(event.target.value)} placeholder="agt_…" />
        </div>
      )}
      <div className="field field-action">
        <button type="submit" className="button button-primary">
          Show sessions
        </button>
      </div>
      {more && (
        <p className="help sess-chooser-note">
          The newest {agents.data.items.length} of {agents.data.total} agents are listed; give the id of an older one.
        </p>
      )}
    </form>
  );
}

export function SessionsByAgent() {
  const [params, setParams] = useSearchParams();
  const agentId = params.get('agent') ?? '';
  return (
    <Section title="Sessions">
      <AgentChooser key={agentId} agentId={agentId} onChoose={(chosen) => setParams(chosen ? { agent: chosen } : {})} />
      <SessionList agentId={agentId || undefined} />
    </Section>
  );
}
