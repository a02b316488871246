import { AppError } from '../../common/errors';
import { eventNames } from '../../common/events';
import {
  DEFAULT_ROUTE,
  EXTRACTIVE_PASSAGES,
  OFFLINE_ROUTE,
  offlineRouteFor,
  parseRoute,
  PROCESSORS,
  routeUsesModel,
  SCENARIOS,
} from '../../completion/route-catalog';

function thrownBy(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an error');
}

describe('the catalogue', () => {
  it('lists the five scenarios with processors that exist and a default among them', () => {
    expect(SCENARIOS.map((s) => s.scenario_id)).toEqual(['chat', 'kbqa', 'agent', 'review', 'import']);
    const processorIds = PROCESSORS.map((p) => p.processor_id);
    for (const s of SCENARIOS) {
      expect(s.processors.length).toBeGreaterThan(0);
      for (const p of s.processors) expect(processorIds).toContain(p);
      expect(s.processors).toContain(s.default_processor);
      for (const e of s.events) expect(eventNames).toContain(e);
    }
    expect(SCENARIOS.find((s) => s.scenario_id === 'review')!.events).toEqual(['review.completed']);
    expect(SCENARIOS.find((s) => s.scenario_id === 'import')!.events).toEqual(['import.completed']);
    expect([...SCENARIOS.find((s) => s.scenario_id === 'kbqa')!.processors].sort()).toEqual(['extractive', 'llm']);
  });

  it('marks which processors need a model and gives every one a default mode', () => {
    const usesModel = Object.fromEntries(PROCESSORS.map((p) => [p.processor_id, p.uses_model]));
    expect(usesModel).toEqual({ llm: true, extractive: false, rules: false, structured: false });
    for (const p of PROCESSORS) {
      expect(p.modes.map((m) => m.mode)).toContain('default');
      for (const m of p.modes) expect(m.description.length).toBeGreaterThan(5);
    }
    expect(PROCESSORS.find((p) => p.processor_id === 'rules')!.modes.map((m) => m.mode)).toEqual(['default', 'security']);
    expect(
      PROCESSORS.find((p) => p.processor_id === 'structured')!
        .modes.map((m) => m.mode)
        .sort(),
    ).toEqual(['bugs', 'default', 'requirements']);
    // Every extractive mode says how many passages it quotes.
    for (const m of PROCESSORS.find((p) => p.processor_id === 'extractive')!.modes) expect(EXTRACTIVE_PASSAGES[m.mode]).toBeGreaterThan(0);
  });
});

describe('parseRoute', () => {
  it('accepts every combination the catalogue offers', () => {
    for (const s of SCENARIOS) {
      for (const processor of s.processors) {
        for (const { mode } of PROCESSORS.find((p) => p.processor_id === processor)!.modes) {
          expect(parseRoute(`@${s.scenario_id}@${processor}@${mode}@`)).toEqual({ scenario: s.scenario_id, processor, mode });
        }
      }
    }
    expect(parseRoute(DEFAULT_ROUTE)).toEqual({ scenario: 'chat', processor: 'llm', mode: 'default' });
  });

  it('names an unknown scenario and lists the supported ones', () => {
    const err = thrownBy(() => parseRoute('@foo@llm@default@'));
    expect(err.code).toBe(10001);
    expect(err.httpStatus).toBe(400);
    expect(err.message).toBe('route: unknown scenario "foo"; supported: chat, kbqa, agent, review, import');
    expect(err.details).toEqual({ field: 'body.route', part: 'scenario' });
  });

  it('refuses a processor the scenario does not accept, and an unknown processor', () => {
    const refused = thrownBy(() => parseRoute('@chat@rules@default@'));
    expect(refused.message).toBe('route: processor "rules" is not accepted by scenario "chat"; accepted: llm');
    expect(refused.details).toEqual({ field: 'body.route', part: 'processor' });
    const unknown = thrownBy(() => parseRoute('@review@gpt@default@'));
    expect(unknown.message).toBe('route: unknown processor "gpt"; accepted by scenario "review": llm, rules');
    expect(unknown.details).toMatchObject({ part: 'processor' });
  });

  it('refuses a mode the processor does not have, even when another processor has it', () => {
    const err = thrownBy(() => parseRoute('@review@rules@concise@'));
    expect(err.message).toBe('route: unknown mode "concise" for processor "rules"; accepted: default, security');
    expect(err.details).toEqual({ field: 'body.route', part: 'mode' });
    expect(thrownBy(() => parseRoute('@import@llm@bugs@')).details).toMatchObject({ part: 'mode' });
  });

  it('refuses malformed routes as a whole, naming where the route came from', () => {
    for (const route of [
      'chat@llm@default',
      '@chat@llm@',
      '@chat@llm@default',
      '@@llm@default@',
      '@chat@llm@default@extra@',
      '@Chat@llm@default@',
      '',
      '@chat @llm@default@',
    ]) {
      const err = thrownBy(() => parseRoute(route));
      expect(err.details).toEqual({ field: 'body.route', part: 'form' });
      expect(err.message).toContain('@scenario@processor@mode@');
    }
    expect(thrownBy(() => parseRoute('@x@y@', 'body.default_route')).details).toEqual({ field: 'body.default_route', part: 'form' });
  });
});

describe('offline routing', () => {
  it('answers model routes with the extractive knowledge-base mode and keeps model-free routes', () => {
    expect(OFFLINE_ROUTE).toBe('@kbqa@extractive@default@');
    expect(routeUsesModel(OFFLINE_ROUTE)).toBe(false);
    for (const route of [
      '@chat@llm@default@',
      '@kbqa@llm@detailed@',
      '@agent@llm@concise@',
      '@review@llm@default@',
      '@import@llm@default@',
    ]) {
      expect(routeUsesModel(route)).toBe(true);
      expect(offlineRouteFor(route)).toBe(OFFLINE_ROUTE);
    }
    for (const route of ['@kbqa@extractive@concise@', '@review@rules@security@', '@import@structured@bugs@']) {
      expect(offlineRouteFor(route)).toBe(route);
    }
    expect(thrownBy(() => offlineRouteFor('@chat@extractive@default@')).details).toMatchObject({ part: 'processor' });
  });
});
