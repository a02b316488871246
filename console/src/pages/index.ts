/**
 * Each section's page, by its path (nav.ts). A section's page owns the routes under its path
 * (`/agents/*`): its list, detail and sub-pages live in its folder. The Overview and API keys come
 * with the first load; every other section is its own chunk, fetched when first opened.
 */
import { type ComponentType, lazy } from 'react';
import { ApiKeys } from './ApiKeys';
import { Overview } from './Overview';

const AgentsSection = lazy(() => import('./agents/AgentsSection').then((m) => ({ default: m.AgentsSection })));
const SessionsSection = lazy(() => import('./sessions/SessionsSection').then((m) => ({ default: m.SessionsSection })));
const KnowledgeSection = lazy(() => import('./knowledge/KnowledgeSection').then((m) => ({ default: m.KnowledgeSection })));
const SkillsSection = lazy(() => import('./skills/SkillsSection').then((m) => ({ default: m.SkillsSection })));
const AutomationsSection = lazy(() => import('./automations/AutomationsSection').then((m) => ({ default: m.AutomationsSection })));
const WebhooksSection = lazy(() => import('./webhooks/WebhooksSection').then((m) => ({ default: m.WebhooksSection })));
const CostsSection = lazy(() => import('./costs/CostsSection').then((m) => ({ default: m.CostsSection })));
const EventsSection = lazy(() => import('./events/EventsSection').then((m) => ({ default: m.EventsSection })));

export const PAGES: Record<string, ComponentType> = {
  '/': Overview,
  '/agents': AgentsSection,
  '/sessions': SessionsSection,
  '/knowledge': KnowledgeSection,
  '/skills': SkillsSection,
  '/automations': AutomationsSection,
  '/webhooks': WebhooksSection,
  '/costs': CostsSection,
  '/events': EventsSection,
  '/settings/api-keys': ApiKeys,
};
