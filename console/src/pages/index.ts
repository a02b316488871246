/**
 * Each section's page, by its path (nav.ts). A section's page owns the routes under its path
 * (`/agents/*`): its list, detail and sub-pages live in its folder.
 */
import type { ComponentType } from 'react';
import { AgentsSection } from './agents/AgentsSection';
import { ApiKeys } from './ApiKeys';
import { AutomationsSection } from './automations/AutomationsSection';
import { CostsSection } from './costs/CostsSection';
import { EventsSection } from './events/EventsSection';
import { KnowledgeSection } from './knowledge/KnowledgeSection';
import { Overview } from './Overview';
import { SessionsSection } from './sessions/SessionsSection';
import { SkillsSection } from './skills/SkillsSection';
import { WebhooksSection } from './webhooks/WebhooksSection';

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
