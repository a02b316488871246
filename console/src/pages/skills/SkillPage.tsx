/** One installed skill: what it adds (instructions, tools and their HTTP calls), activation on a session, delete after confirming. */
import type { Skill, SkillActivation } from '@combo/client';
import { type FormEvent, useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { fieldOf } from '../../api/errors';
import { useActivateSkill, useDeleteSkill, useSessionChoices, useSkill } from '../../api/skills';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorBanner } from '../../components/ErrorBanner';
import { PageLayout, Section } from '../../components/PageLayout';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { AgentSelect, Facts } from '../automations/fields';

function ToolList({ skill }: { skill: Skill }) {
  if (skill.tools.length === 0) return <p className="muted">This skill has no tools: it adds instructions only.</p>;
  return (
    <ul className="skill-tools">
      {skill.tools.map((tool) => (
        <li key={tool.name} className="skill-tool">
          <h3>
            <code>
              {skill.name}__{tool.name}
            </code>
          </h3>
          <p>{tool.description}</p>
          <Facts
            items={[
              [
                'HTTP call',
                <code key="h" className="auto-wrap">
                  {tool.http.method} {tool.http.url}
                </code>,
              ],
              ['Timeout', `${tool.http.timeout_ms ?? 10_000} ms`],
              [
                'Headers',
                Object.keys(tool.http.headers ?? {}).length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <code className="auto-wrap">
                    {Object.entries(tool.http.headers ?? {})
                      .map(([name, value]) => `${name}: ${value}`)
                      .join('; ')}
                  </code>
                ),
              ],
            ]}
          />
          <details className="skill-schema">
            <summary>Parameters (JSON Schema)</summary>
            <pre className="auto-pre" tabIndex={0} aria-label={`Parameters of ${tool.name}`}>
              {JSON.stringify(tool.parameters, null, 2)}
            </pre>
          </details>
        </li>
      ))}
    </ul>
  );
}

/** Activate on a session: choose the agent, then one of its sessions. */
function ActivateForm({ skill }: { skill: Skill }) {
  const activate = useActivateSkill();
  const notify = useToast();
  const [agentId, setAgentId] = useState('');
  const [sessionId, setSessionId] = useState('');
  const [done, setDone] = useState<SkillActivation | null>(null);
  const sessions = useSessionChoices(agentId);
  const ids = { session: useId(), help: useId() };
  const invalid = fieldOf(activate.error);
  const items = sessions.data?.items ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    activate.mutate(
      { skillId: skill.skill_id, sessionId },
      {
        onSuccess: (result) => {
          setDone(result);
          notify(`Skill "${skill.name}" activated on ${result.session_id}`);
        },
      },
    );
  };

  return (
    <>
      <form className="form-row" onSubmit={submit} aria-label="Activate on a session">
        <AgentSelect
          value={agentId}
          onChange={(next) => {
            setAgentId(next);
            setSessionId('');
          }}
        />
        <div className="field">
          <label htmlFor={ids.session}>Session</label>
          <select
            id={ids.session}
            value={sessionId}
            onChange={(e) => setSessionId(e.target.value)}
            required
            disabled={agentId === '' || sessions.isLoading}
            aria-invalid={invalid === 'session_id'}
            aria-describedby={ids.help}
          >
            <option value="">
              {agentId === '' ? 'Choose an agent first' : sessions.isLoading ? 'Loading sessions…' : 'Choose a session'}
            </option>
            {items.map((session) => (
              <option key={session.session_id} value={session.session_id} disabled={session.status === 'archived'}>
                {session.name ? `${session.name} · ` : ''}
                {session.session_id} · {new Date(session.created_at).toLocaleString()}
                {session.status === 'archived' ? ' (archived)' : ''}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-action">
          <button type="submit" className="button button-primary" disabled={activate.isPending || sessionId === ''}>
            {activate.isPending ? 'Activating…' : 'Activate'}
          </button>
        </div>
      </form>
      <p id={ids.help} className="help">
        {sessions.error
          ? 'The sessions could not be listed.'
          : agentId !== '' && sessions.data && items.length === 0
            ? 'This agent has no sessions yet: start one in its playground (Agents), then come back.'
            : sessions.data && sessions.data.total > items.length
              ? `The ${items.length} newest of ${sessions.data.total} sessions are listed. Archived sessions cannot take skills.`
              : 'From its next completion, the session\u2019s model sees the instructions and the tools. Archived sessions cannot take skills.'}
      </p>
      {sessions.error !== null && <ErrorBanner error={sessions.error} title="Could not list the sessions" />}
      {activate.error !== null && <ErrorBanner error={activate.error} title="Could not activate the skill" />}
      {done && (
        <div className="banner banner-info" role="status">
          <p className="banner-title">
            Active on <Link to={`/sessions/${done.session_id}`}>{done.session_id}</Link>
          </p>
          <p>
            Skills active on it now, in activation order:{' '}
            {done.active_skill_ids.map((id, index) => (
              <span key={id}>
                {index > 0 && ', '}
                <code>{id}</code>
              </span>
            ))}
          </p>
        </div>
      )}
    </>
  );
}

export function SkillPage({ skillId }: { skillId: string }) {
  const skill = useSkill(skillId);
  const remove = useDeleteSkill();
  const navigate = useNavigate();
  const notify = useToast();
  const [deleting, setDeleting] = useState(false);
  const data = skill.data;
  if (!data)
    return (
      <PageLayout title="Skill">
        <p>
          <Link to="/skills">← Skills</Link>
        </p>
        {skill.error ? (
          <ErrorBanner error={skill.error} title="Could not load the skill" onRetry={() => void skill.refetch()} />
        ) : (
          <p className="muted loading">Loading the skill…</p>
        )}
      </PageLayout>
    );
  return (
    <PageLayout
      title={`${data.name} ${data.version}`}
      description={data.description || undefined}
      actions={
        <button type="button" className="button button-danger-quiet" onClick={() => setDeleting(true)}>
          Delete
        </button>
      }
    >
      <p>
        <Link to="/skills">← Skills</Link>
      </p>
      <Section title="Activate on a session">
        <ActivateForm skill={data} />
      </Section>
      <Section title="Instructions">
        <Facts
          items={[
            ['Skill id', <code key="i">{data.skill_id}</code>],
            ['Installed', <Time key="t" value={data.created_at} />],
          ]}
        />
        {data.instructions ? (
          <pre className="auto-pre skill-instructions" tabIndex={0} aria-label="Instructions">
            {data.instructions}
          </pre>
        ) : (
          <p className="muted">No instructions.</p>
        )}
      </Section>
      <Section title={`Tools (${data.tools.length})`} id="skill-tools">
        <ToolList skill={data} />
      </Section>
      <ConfirmDialog
        open={deleting}
        title={`Delete the skill "${data.name}" ${data.version}?`}
        confirmLabel="Delete skill"
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await remove.mutateAsync(data.skill_id);
          notify(`Skill "${data.name}" deleted`);
          void navigate('/skills');
        }}
      >
        <p>Sessions on which it is active stop using its instructions and tools from their next model call. This cannot be undone.</p>
      </ConfirmDialog>
    </PageLayout>
  );
}
