/**
 * The console's sections, in the order of the navigation (issue 25); pages/index.ts gives each its page.
 */
export interface NavSection {
  path: string;
  label: string;
  /** What the section is for (the "coming" page shows it). */
  summary: string;
  /** The API's routes it is built on, shown on its "coming" page. */
  endpoints: string[];
  group: 'operate' | 'settings';
}

export const SECTIONS: NavSection[] = [
  {
    path: '/',
    label: 'Overview',
    summary: 'Readiness of the service, runs and failures of the last hour, dead deliveries and tokens spent today.',
    endpoints: ['GET /v1/ready', 'GET /v1/combo/completions', 'GET /v1/webhook/dead-letters', 'GET /v1/costs'],
    group: 'operate',
  },
  {
    path: '/agents',
    label: 'Agents',
    summary: 'Create, edit and delete agents, and try them in a playground with streamed answers, tool calls and approvals.',
    endpoints: ['/v1/combo/agents', 'POST /v1/combo/agents/{agent_id}/completions'],
    group: 'operate',
  },
  {
    path: '/sessions',
    label: 'Sessions & runs',
    summary: "Sessions' transcripts, runs filtered by status, each run's event timeline and its workflow in the Temporal UI.",
    endpoints: ['/v1/combo/sessions', '/v1/combo/completions'],
    group: 'operate',
  },
  {
    path: '/knowledge',
    label: 'Knowledge',
    summary: 'Knowledge bases, uploads with parse progress, the chunk viewer and a search playground with score parts.',
    endpoints: ['/v1/kb', '/v1/document', 'POST /v1/chunk/search'],
    group: 'operate',
  },
  {
    path: '/skills',
    label: 'Skills',
    summary: 'Installed skills, installing one, and activating it on a session.',
    endpoints: ['/v1/skills'],
    group: 'operate',
  },
  {
    path: '/automations',
    label: 'Automations',
    summary: 'Integrations with their signing secrets, event triggers with a preview, and cron jobs (pause, resume, run now, backfill).',
    endpoints: ['/v1/integrations', '/v1/event-trigger', '/v1/cron'],
    group: 'operate',
  },
  {
    path: '/webhooks',
    label: 'Webhooks',
    summary: 'Subscriptions, the delivery log with every attempt, the dead-letter queue and replays by time range.',
    endpoints: ['/v1/webhook/subscriptions', '/v1/webhook/deliveries', '/v1/webhook/dead-letters', '/v1/webhook/replays'],
    group: 'operate',
  },
  {
    path: '/costs',
    label: 'Costs',
    summary: 'Tokens and durations per agent and per day, and the cost threshold.',
    endpoints: ['GET /v1/costs', 'PUT /v1/costs/threshold'],
    group: 'operate',
  },
  {
    path: '/events',
    label: 'Event log',
    summary: 'The recorded events, filtered by name and time.',
    endpoints: ['GET /v1/events'],
    group: 'operate',
  },
  {
    path: '/settings/api-keys',
    label: 'API keys',
    summary: 'Your API keys: create one (shown once), list them, revoke them.',
    endpoints: ['/v1/api-keys'],
    group: 'settings',
  },
];
