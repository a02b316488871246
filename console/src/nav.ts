/**
 * The console's sections, in the order of the navigation (issue 25); pages/index.ts gives each its page.
 */
export interface NavSection {
  path: string;
  label: string;
  group: 'operate' | 'settings';
}

export const SECTIONS: NavSection[] = [
  {
    path: '/',
    label: 'Overview',
    group: 'operate',
  },
  {
    path: '/agents',
    label: 'Agents',
    group: 'operate',
  },
  {
    path: '/sessions',
    label: 'Sessions & runs',
    group: 'operate',
  },
  {
    path: '/knowledge',
    label: 'Knowledge',
    group: 'operate',
  },
  {
    path: '/skills',
    label: 'Skills',
    group: 'operate',
  },
  {
    path: '/automations',
    label: 'Automations',
    group: 'operate',
  },
  {
    path: '/webhooks',
    label: 'Webhooks',
    group: 'operate',
  },
  {
    path: '/costs',
    label: 'Costs',
    group: 'operate',
  },
  {
    path: '/events',
    label: 'Event log',
    group: 'operate',
  },
  {
    path: '/settings/api-keys',
    label: 'API keys',
    group: 'settings',
  },
];
