import { processorList, scenarioList } from '../../common/schemas/catalog';
import { DEFAULT_ROUTE, OFFLINE_ROUTE, PROCESSORS, SCENARIOS } from '../../completion/route-catalog';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Metadata';

// The catalogue is the same for every tenant and installation: no service is consulted.
export const catalogRoutes = (_services: Services) => [
  defineRoute({
    method: 'get',
    path: '/v1/combo/scenarios',
    operationId: 'listScenarios',
    tag,
    summary: 'Supported scenarios and the processors each accepts',
    description:
      `A completion's \`route\` is \`@scenario@processor@mode@\`; the default is \`${DEFAULT_ROUTE}\`. When no language model ` +
      `is configured, a route whose processor uses one is answered by \`${OFFLINE_ROUTE}\` (knowledge-base passages, quoted).`,
    response: scenarioList,
    handler: () => ({ items: SCENARIOS.map((s) => ({ ...s, processors: [...s.processors], events: [...s.events] })) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/combo/processors',
    operationId: 'listProcessors',
    tag,
    summary: 'Supported processors and their modes',
    description: '`uses_model`: the processor calls a language model; the others answer without one.',
    response: processorList,
    handler: () => ({ items: PROCESSORS.map((p) => ({ ...p, modes: p.modes.map((m) => ({ ...m })) })) }),
  }),
];
