/**
 * Sessions & runs (/sessions/*): the tenant's runs (the landing page) and sessions by agent, as two
 * tabs; a session's page (/sessions/:sessionId) and a run's (/sessions/runs/:traceId, the address
 * other pages link a run to).
 */
import type { ReactNode } from 'react';
import { NavLink, Route, Routes, useParams } from 'react-router';
import { PageLayout } from '../../components/PageLayout';
import { NotFound } from '../NotFound';
import { RunPage } from './RunPage';
import { RunsPage } from './RunsPage';
import { SessionPage } from './SessionPage';
import { SessionsByAgent } from './SessionsByAgent';
import '../events/events.css';
import './sessions.css';

const tabClass = ({ isActive }: { isActive: boolean }) => (isActive ? 'tab tab-active' : 'tab');

function Lists({ children }: { children: ReactNode }) {
  return (
    <PageLayout
      title="Sessions & runs"
      description="Runs of every agent, with their status, cost and event timeline, and each agent's sessions with their transcripts."
    >
      <nav className="tabs" aria-label="Sessions and runs views">
        <NavLink to="/sessions" end className={tabClass}>
          Runs
        </NavLink>
        <NavLink to="/sessions/by-agent" className={tabClass}>
          Sessions
        </NavLink>
      </nav>
      {children}
    </PageLayout>
  );
}

/** Each page by its id, so another id starts afresh (its events, its transcript page). */
function RunRoute() {
  const { traceId = '' } = useParams();
  return <RunPage key={traceId} traceId={traceId} />;
}

function SessionRoute() {
  const { sessionId = '' } = useParams();
  return <SessionPage key={sessionId} sessionId={sessionId} />;
}

export function SessionsSection() {
  return (
    <Routes>
      <Route
        index
        element={
          <Lists>
            <RunsPage />
          </Lists>
        }
      />
      <Route
        path="by-agent"
        element={
          <Lists>
            <SessionsByAgent />
          </Lists>
        }
      />
      <Route path="runs/:traceId" element={<RunRoute />} />
      <Route path=":sessionId" element={<SessionRoute />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
