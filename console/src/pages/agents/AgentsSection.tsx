/**
 * The Agents section (its own routes under /agents/*): the list, a new agent, an agent's form, and
 * its playground.
 */
import { Route, Routes } from 'react-router';
import { NotFound } from '../NotFound';
import { AgentCreate, AgentEdit } from './AgentPages';
import { AgentList } from './AgentList';
import { Playground } from './Playground';
import './agents.css';

export function AgentsSection() {
  return (
    <Routes>
      <Route index element={<AgentList />} />
      <Route path="new" element={<AgentCreate />} />
      <Route path=":agentId" element={<AgentEdit />} />
      <Route path=":agentId/playground" element={<Playground />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
