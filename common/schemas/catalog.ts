import { z } from 'zod';
import { eventName } from '../events';

/** What GET /v1/combo/scenarios and GET /v1/combo/processors describe (completion/route-catalog.ts holds the data). */
const scenario = z
  .object({
    scenario_id: z.string().meta({ example: 'kbqa' }),
    description: z.string(),
    processors: z.array(z.string()).meta({ description: 'processors this scenario accepts in a route' }),
    default_processor: z.string(),
    events: z
      .array(eventName)
      .meta({ description: 'outbound events a run of this scenario emits when it finishes (besides session.finished)' }),
  })
  .meta({ id: 'Scenario' });

const processorMode = z.object({ mode: z.string().meta({ example: 'default' }), description: z.string() }).meta({ id: 'ProcessorMode' });

const processor = z
  .object({
    processor_id: z.string().meta({ example: 'extractive' }),
    description: z.string(),
    uses_model: z
      .boolean()
      .meta({ description: 'the processor calls a language model (without one configured, the route is answered offline)' }),
    modes: z.array(processorMode),
  })
  .meta({ id: 'Processor' });

export const scenarioList = z.object({ items: z.array(scenario) }).meta({ id: 'ScenarioList' });
export const processorList = z.object({ items: z.array(processor) }).meta({ id: 'ProcessorList' });
