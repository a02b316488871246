/**
 * Skills (/skills/*): the installed skills with the install form (a pasted manifest, checked as
 * JSON here and by the API, whose refusal is shown on the field), and a skill's page
 * (/skills/:skillId): its instructions and tools, activation on a session (agent, then session),
 * delete after confirming.
 */
import type { Skill } from '@combo/client';
import { useState } from 'react';
import { Link, Route, Routes, useParams } from 'react-router';
import { useDeleteSkill, useSkills } from '../../api/skills';
import { isAdmin, useSession } from '../../auth/session';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { type Column, DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { NameFilter, NoNameMatch, useNameParam } from '../../components/NameFilter';
import { PageLayout, Section } from '../../components/PageLayout';
import { Time } from '../../components/Time';
import { useToast } from '../../components/Toast';
import { NotFound } from '../NotFound';
import { InstallSkillForm } from './InstallSkill';
import { SkillPage } from './SkillPage';
import '../automations/automations.css';
import './skills.css';

function SkillList() {
  const admin = isAdmin(useSession());
  const [name, setName] = useNameParam();
  const list = useSkills(name);
  const remove = useDeleteSkill();
  const notify = useToast();
  const [deleting, setDeleting] = useState<Skill | null>(null);
  const columns: Column<Skill>[] = [
    {
      key: 'name',
      header: 'Skill',
      render: (skill) => (
        <>
          <Link to={skill.skill_id}>{skill.name}</Link> <span className="muted">{skill.version}</span>
        </>
      ),
    },
    { key: 'description', header: 'Description', render: (skill) => <span className="skill-description">{skill.description || '—'}</span> },
    {
      key: 'tools',
      header: 'Tools',
      kind: 'numeric',
      render: (skill) => skill.tools.length,
    },
    { key: 'installed', header: 'Installed', render: (skill) => <Time value={skill.created_at} /> },
    {
      key: 'actions',
      header: 'Actions',
      kind: 'actions',
      render: (skill) => (
        <div className="auto-actions">
          <Link className="auto-button-link button button-small" to={skill.skill_id}>
            Open<span className="visually-hidden"> {skill.name}</span>
          </Link>
          <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(skill)}>
            Delete<span className="visually-hidden"> {skill.name}</span>
          </button>
        </div>
      ),
    },
  ];
  return (
    <PageLayout
      title="Skills"
      description="Instructions and HTTP tools packaged as a manifest. Installed once per tenant; active on a session once activated there, or on all sessions of an agent that names it."
    >
      <Section title="Install a skill">
        {!admin && <p className="help">Only admins install skills: the API will refuse the install for your role.</p>}
        <InstallSkillForm />
      </Section>
      <Section title="Installed skills">
        <NameFilter key={name ?? ''} label="skills" name={name} onApply={setName} />
        <DataTable
          caption="installed skills"
          columns={columns}
          list={list}
          rowKey={(skill) => skill.skill_id}
          empty={
            name ? (
              <NoNameMatch what="skill" name={name} />
            ) : (
              <EmptyState title="No skills installed yet">
                <p>Paste a manifest above to install one (start from the example), then activate it on a session.</p>
              </EmptyState>
            )
          }
        />
      </Section>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the skill "${deleting?.name ?? ''}" ${deleting?.version ?? ''}?`}
        confirmLabel="Delete skill"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await remove.mutateAsync(deleting.skill_id);
          notify(`Skill "${deleting.name}" deleted`);
        }}
      >
        <p>Sessions on which it is active stop using its instructions and tools from their next model call. This cannot be undone.</p>
      </ConfirmDialog>
    </PageLayout>
  );
}

function SkillRoute() {
  const { skillId = '' } = useParams();
  return <SkillPage key={skillId} skillId={skillId} />;
}

export function SkillsSection() {
  return (
    <Routes>
      <Route index element={<SkillList />} />
      <Route path=":skillId" element={<SkillRoute />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
