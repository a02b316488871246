/**
 * Automations (/automations/*): three tabs — integrations (/automations/integrations), event
 * triggers (/automations/triggers, a trigger's page with its preview at /automations/triggers/:id
 * or /new) and cron jobs (/automations/cron, a job's page at /automations/cron/:id or /new).
 */
import type { ReactNode } from 'react';
import { Navigate, NavLink, Route, Routes, useParams } from 'react-router';
import { PageLayout } from '../../components/PageLayout';
import { NotFound } from '../NotFound';
import { CronJobPage } from './CronJobPage';
import { EditCronJob, NewCronJob } from './CronJobForm';
import { CronJobsTab } from './CronJobs';
import { IntegrationsTab } from './Integrations';
import { EditTrigger, NewTrigger } from './TriggerEditor';
import { TriggersTab } from './Triggers';
import './automations.css';

const TABS = [
  { to: '/automations/integrations', label: 'Integrations' },
  { to: '/automations/triggers', label: 'Event triggers' },
  { to: '/automations/cron', label: 'Cron jobs' },
];

function Tabs({ children }: { children: ReactNode }) {
  return (
    <PageLayout
      title="Automations"
      description="Events from other systems (integrations and their signing secrets), what they start (event triggers), and questions asked on a schedule (cron jobs)."
    >
      <nav className="tabs" aria-label="Automations">
        {TABS.map((tab) => (
          <NavLink key={tab.to} to={tab.to} end className={({ isActive }) => (isActive ? 'tab tab-active' : 'tab')}>
            {tab.label}
          </NavLink>
        ))}
      </nav>
      {children}
    </PageLayout>
  );
}

/** Each page by its id, so another id starts afresh (its draft, its watch). */
function TriggerRoute() {
  const { triggerId = '' } = useParams();
  return <EditTrigger key={triggerId} triggerId={triggerId} />;
}

function CronRoute() {
  const { cronId = '' } = useParams();
  return <CronJobPage key={cronId} cronId={cronId} />;
}

function CronEditRoute() {
  const { cronId = '' } = useParams();
  return <EditCronJob key={cronId} cronId={cronId} />;
}

export function AutomationsSection() {
  return (
    <Routes>
      <Route index element={<Navigate to="integrations" replace />} />
      <Route
        path="integrations"
        element={
          <Tabs>
            <IntegrationsTab />
          </Tabs>
        }
      />
      <Route
        path="triggers"
        element={
          <Tabs>
            <TriggersTab />
          </Tabs>
        }
      />
      <Route path="triggers/new" element={<NewTrigger />} />
      <Route path="triggers/:triggerId" element={<TriggerRoute />} />
      <Route
        path="cron"
        element={
          <Tabs>
            <CronJobsTab />
          </Tabs>
        }
      />
      <Route path="cron/new" element={<NewCronJob />} />
      <Route path="cron/:cronId" element={<CronRoute />} />
      <Route path="cron/:cronId/edit" element={<CronEditRoute />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
