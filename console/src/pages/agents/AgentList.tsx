/** Agents: the list, page by page, with each agent's playground, form and delete (asking first). */
import type { Agent } from '@combo/client';
import { useState } from 'react';
import { Link } from 'react-router';
import { useAgents } from '../../api/agents';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { NameFilter, NoNameMatch, useNameParam } from '../../components/NameFilter';
import { PageLayout, Section } from '../../components/PageLayout';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { DeleteAgentDialog } from './DeleteAgentDialog';
import { deletedMessage } from './deleted';

const count = (list: string[], one: string, many: string) =>
  list.length === 0 ? null : `${list.length} ${list.length === 1 ? one : many}`;

export function AgentList() {
  const [name, setName] = useNameParam();
  const agents = useAgents(name);
  const notify = useToast();
  const [deleting, setDeleting] = useState<Agent | null>(null);

  const columns: Column<Agent>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (agent) => (
        <div className="agents-name-cell">
          <Link to={agent.agent_id}>
            <strong>{agent.name}</strong>
          </Link>
          <code className="agents-id">{agent.agent_id}</code>
          {agent.description && (
            <span className="agents-description" title={agent.description}>
              {agent.description}
            </span>
          )}
        </div>
      ),
    },
    {
      key: 'route',
      header: 'Default route',
      render: (agent) => (agent.default_route ? <code>{agent.default_route}</code> : <span className="muted">@chat@llm@default@</span>),
    },
    {
      key: 'uses',
      header: 'Uses',
      render: (agent) => {
        const uses = [
          count(agent.tools, 'tool', 'tools'),
          count(agent.kb_ids, 'knowledge base', 'knowledge bases'),
          count(agent.skills, 'skill', 'skills'),
          agent.approval ? 'approvals' : null,
        ].filter(Boolean);
        return uses.length > 0 ? uses.join(', ') : <span className="muted">the model only</span>;
      },
    },
    { key: 'updated', header: 'Updated', render: (agent) => <Time value={agent.updated_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (agent) => (
        <div className="agents-row-actions">
          <Link className="button button-small agents-link-button" to={`${agent.agent_id}/playground`}>
            Playground<span className="visually-hidden"> of {agent.name}</span>
          </Link>
          <Link className="button button-small agents-link-button" to={agent.agent_id}>
            Edit<span className="visually-hidden"> {agent.name}</span>
          </Link>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(agent)}>
            Delete<span className="visually-hidden"> {agent.name}</span>
          </button>
        </div>
      ),
    },
  ];

  return (
    <PageLayout
      title="Agents"
      description="An agent is instructions, a model, tools, knowledge bases and skills; try one in its playground."
      actions={
        <Link className="button button-primary agents-link-button" to="new">
          New agent
        </Link>
      }
    >
      <Section title="Agents of the tenant">
        <NameFilter key={name ?? ''} label="agents" name={name} onApply={setName} />
        <DataTable
          caption="Agents"
          columns={columns}
          list={agents}
          rowKey={(agent) => agent.agent_id}
          empty={
            name ? (
              <NoNameMatch what="agent" name={name} />
            ) : (
              <EmptyState title="No agents yet" action={<Link to="new">Create an agent</Link>}>
                <p>Create one: give it a name and instructions, then chat with it in its playground.</p>
              </EmptyState>
            )
          }
        />
      </Section>
      <DeleteAgentDialog
        agent={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={(name, cascaded) => notify(deletedMessage(name, cascaded))}
      />
    </PageLayout>
  );
}
