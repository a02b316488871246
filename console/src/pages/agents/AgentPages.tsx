/** A new agent, and an agent's form (edit, open its playground, delete it): the form comes from the API's schemas. */
import type { CreateAgentRequest } from '@combo/client';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useAgent, useAgentSchemas, useCreateAgent, useUpdateAgent } from '../../api/agents';
import { hasCode } from '../../api/errors';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { AgentForm } from './AgentForm';
import { DeleteAgentDialog } from './DeleteAgentDialog';
import { deletedMessage } from './deleted';

export function AgentCreate() {
  const schemas = useAgentSchemas();
  const create = useCreateAgent();
  const navigate = useNavigate();
  const notify = useToast();
  return (
    <PageLayout title="New agent" description="Every field is the API's (CreateAgentRequest); the service checks them when you create it.">
      <Section title="The agent">
        {schemas.error !== null && (
          <ErrorBanner error={schemas.error} title="Could not read the agent schema" onRetry={() => void schemas.refetch()} />
        )}
        {schemas.isLoading && <p className="muted loading">Loading the agent schema…</p>}
        {schemas.data && (
          <AgentForm
            schema={schemas.data.create}
            mode="create"
            submitLabel="Create agent"
            pending={create.isPending}
            error={create.error}
            cancelTo=".."
            onSubmit={(body) =>
              create.mutate(body as unknown as CreateAgentRequest, {
                onSuccess: (agent) => {
                  notify(`Agent "${agent.name}" created`);
                  void navigate(`../${agent.agent_id}`);
                },
              })
            }
          />
        )}
      </Section>
    </PageLayout>
  );
}

export function AgentEdit() {
  const { agentId = '' } = useParams();
  const agent = useAgent(agentId);
  const schemas = useAgentSchemas();
  const update = useUpdateAgent(agentId);
  const navigate = useNavigate();
  const notify = useToast();
  const [deleting, setDeleting] = useState(false);

  if (hasCode(agent.error, 10004))
    return (
      <PageLayout title="Agent not found">
        <EmptyState title={`There is no agent ${agentId}`} action={<Link to="..">All agents</Link>}>
          <p>It may have been deleted. Pick one from the list.</p>
        </EmptyState>
      </PageLayout>
    );

  const data = agent.data;
  return (
    <PageLayout
      title={data ? data.name : 'Agent'}
      description={
        data && (
          <>
            <code>{data.agent_id}</code> · created <Time value={data.created_at} /> · updated <Time value={data.updated_at} />
          </>
        )
      }
      actions={
        data && (
          <>
            <Link className="button button-primary agents-link-button" to="playground">
              Open playground
            </Link>
            <button type="button" className="button button-danger-quiet" onClick={() => setDeleting(true)}>
              Delete agent
            </button>
          </>
        )
      }
    >
      <p className="agents-back">
        <Link to="..">← All agents</Link>
      </p>
      <Section title="Edit the agent">
        {agent.error !== null && <ErrorBanner error={agent.error} title="Could not load the agent" onRetry={() => void agent.refetch()} />}
        {schemas.error !== null && (
          <ErrorBanner error={schemas.error} title="Could not read the agent schema" onRetry={() => void schemas.refetch()} />
        )}
        {(agent.isLoading || schemas.isLoading) && <p className="muted loading">Loading the agent…</p>}
        {data && schemas.data && (
          <AgentForm
            key={data.agent_id}
            schema={schemas.data.update}
            mode="update"
            agent={data}
            submitLabel="Save changes"
            pending={update.isPending}
            error={update.error}
            cancelTo=".."
            onSubmit={(body) => update.mutate(body, { onSuccess: (saved) => notify(`Agent "${saved.name}" saved`) })}
          />
        )}
      </Section>
      <DeleteAgentDialog
        agent={deleting && data ? data : null}
        onClose={() => setDeleting(false)}
        onDeleted={(name, cascaded) => {
          notify(deletedMessage(name, cascaded));
          void navigate('..');
        }}
      />
    </PageLayout>
  );
}
