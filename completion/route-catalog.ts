import { invalid } from '../common/errors';
import type { EventName } from '../common/events';

/**
 * What a completion's `route` (`@scenario@processor@mode@`) may name. The scenario says what the
 * run is for, the processor how it is answered (with or without a language model), the mode tunes
 * the processor. Pure data: imported by the API, the activities and the workflow bundle.
 */
export interface ScenarioInfo {
  scenario_id: string;
  description: string;
  /** Processors this scenario accepts, the default first. */
  processors: string[];
  default_processor: string;
  /** Outbound events a run of this scenario emits when it finishes (besides `session.finished`). */
  events: EventName[];
}

interface ModeInfo {
  mode: string;
  description: string;
}

export interface ProcessorInfo {
  processor_id: string;
  description: string;
  uses_model: boolean;
  /** Modes this processor accepts; `default` is always one of them. */
  modes: ModeInfo[];
}

export interface ParsedRoute {
  scenario: string;
  processor: string;
  mode: string;
}

export const SCENARIOS: readonly ScenarioInfo[] = [
  {
    scenario_id: 'chat',
    description: 'Plain conversation with the agent, following its instructions and the session history.',
    processors: ['llm'],
    default_processor: 'llm',
    events: [],
  },
  {
    scenario_id: 'kbqa',
    description:
      "Knowledge-base question answering: retrieves the best passages from the agent's knowledge bases (only the documents in " +
      '`context_ids` when given) and answers citing them as [n], listed in `reference`.',
    processors: ['llm', 'extractive'],
    default_processor: 'llm',
    events: [],
  },
  {
    scenario_id: 'agent',
    description: "Tool-using agent: the model calls the agent's tools (built-in and from active skills) until it can answer.",
    processors: ['llm'],
    default_processor: 'llm',
    events: [],
  },
  {
    scenario_id: 'review',
    description:
      'Code review of a unified diff given in the question or an attachment. The findings are counted by severity ' +
      '(critical, warning, info) and announced with `review.completed`.',
    processors: ['llm', 'rules'],
    default_processor: 'llm',
    events: ['review.completed'],
  },
  {
    scenario_id: 'import',
    description:
      'Imports requirements or bugs from CSV (header row with a title column), JSON (an array of objects, or `{"items": [...]}`) ' +
      'or a Markdown list, given in the question or an attachment. Rows without a title are reported, not imported; ' +
      'the outcome is announced with `import.completed`.',
    processors: ['structured', 'llm'],
    default_processor: 'structured',
    events: ['import.completed'],
  },
];

/** Passages the extractive processor quotes, per mode. */
export const EXTRACTIVE_PASSAGES: Readonly<Record<string, number>> = { default: 3, concise: 1, detailed: 6 };

export const PROCESSORS: readonly ProcessorInfo[] = [
  {
    processor_id: 'llm',
    description: "The agent's language model writes the answer (with the scenario's guidance, retrieved passages and tools).",
    uses_model: true,
    modes: [
      { mode: 'default', description: 'Answers as the agent instructions ask.' },
      { mode: 'concise', description: 'Short answers: at most three sentences unless a list is unavoidable.' },
      { mode: 'detailed', description: 'Thorough answers with headings or lists and the reasoning explained.' },
    ],
  },
  {
    processor_id: 'extractive',
    description:
      'No language model: quotes the knowledge-base passages that best match the question, trimmed to their most relevant ' +
      'sentences, and says plainly that the answer is an extract. Also the offline mode when no model is configured.',
    uses_model: false,
    modes: [
      { mode: 'default', description: `Quotes up to ${EXTRACTIVE_PASSAGES.default} passages.` },
      { mode: 'concise', description: `Quotes only the best passage.` },
      { mode: 'detailed', description: `Quotes up to ${EXTRACTIVE_PASSAGES.detailed} passages.` },
    ],
  },
  {
    processor_id: 'rules',
    description:
      'No language model: static checks on the lines the diff adds (hard-coded secrets, eval/exec, SQL built from strings, ' +
      'merge-conflict markers, debug leftovers, TODO/FIXME, very long lines).',
    uses_model: false,
    modes: [
      { mode: 'default', description: 'All checks.' },
      { mode: 'security', description: 'Only the security checks: secrets, eval/exec and shell execution, SQL built from strings.' },
    ],
  },
  {
    processor_id: 'structured',
    description: 'No language model: parses the CSV, JSON or Markdown rows into items and validates each one.',
    uses_model: false,
    modes: [
      { mode: 'default', description: 'Same as `requirements`.' },
      {
        mode: 'requirements',
        description: 'Items are requirements: title, description, priority (critical, high, medium, low), acceptance criteria.',
      },
      {
        mode: 'bugs',
        description:
          'Items are bugs: title, description, severity (critical, major, minor, trivial), steps to reproduce, expected and actual result.',
      },
    ],
  },
];

export const DEFAULT_ROUTE = '@chat@llm@default@';

/**
 * Without a configured language model, a route whose processor needs one is answered in the
 * offline knowledge-base mode: the passages that match the question, quoted (never passed off as a
 * model's answer).
 */
export const OFFLINE_ROUTE = '@kbqa@extractive@default@';

const formatRoute = ({ scenario, processor, mode }: ParsedRoute) => `@${scenario}@${processor}@${mode}@`;

const scenarioInfo = (id: string) => SCENARIOS.find((s) => s.scenario_id === id);
const processorInfo = (id: string) => PROCESSORS.find((p) => p.processor_id === id);

const SEGMENT = /^[a-z0-9_-]+$/;

/**
 * Splits and checks a route against the catalogue. Every failure is a 10001 naming the part that
 * is wrong and what would be accepted there. `field` names where the route came from.
 */
export function parseRoute(route: string, field = 'body.route'): ParsedRoute {
  const fail = (part: 'scenario' | 'processor' | 'mode' | 'form', message: string) => invalid(`route: ${message}`, { field, part });
  const segments = /^@([^@]*)@([^@]*)@([^@]*)@$/.exec(route);
  if (!segments || !segments.slice(1).every((s) => SEGMENT.test(s))) {
    throw fail(
      'form',
      `must have the form @scenario@processor@mode@ with lowercase letters, digits, _ or - in each part (got ${JSON.stringify(route.slice(0, 100))})`,
    );
  }
  const [scenario = '', processor = '', mode = ''] = segments.slice(1);

  const scenarioDef = scenarioInfo(scenario);
  if (!scenarioDef) throw fail('scenario', `unknown scenario "${scenario}"; supported: ${SCENARIOS.map((s) => s.scenario_id).join(', ')}`);

  const processorDef = processorInfo(processor);
  if (!processorDef) {
    throw fail('processor', `unknown processor "${processor}"; accepted by scenario "${scenario}": ${scenarioDef.processors.join(', ')}`);
  }
  if (!scenarioDef.processors.includes(processor)) {
    throw fail(
      'processor',
      `processor "${processor}" is not accepted by scenario "${scenario}"; accepted: ${scenarioDef.processors.join(', ')}`,
    );
  }

  if (!processorDef.modes.some((m) => m.mode === mode)) {
    throw fail(
      'mode',
      `unknown mode "${mode}" for processor "${processor}"; accepted: ${processorDef.modes.map((m) => m.mode).join(', ')}`,
    );
  }
  return { scenario, processor, mode };
}

/** The processor of a valid route calls a language model. */
export const routeUsesModel = (route: string): boolean => processorInfo(parseRoute(route).processor)!.uses_model;

/**
 * The route to take when no language model is configured: the route itself when its processor
 * needs none (rules, structured, extractive), else OFFLINE_ROUTE.
 */
export function offlineRouteFor(route: string): string {
  return routeUsesModel(route) ? OFFLINE_ROUTE : formatRoute(parseRoute(route));
}
