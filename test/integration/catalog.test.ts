import { consoleToken, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /v1/combo/scenarios', () => {
  it('lists every scenario with the processors it accepts and the events it emits', async () => {
    const member = await consoleToken({ tenant_id: 'default', sub: 'reader', roles: ['member'] });
    const res = await api.call('GET', '/v1/combo/scenarios', { key: member });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ code: 0, message: 'ok' });
    const items = res.json.data.items as Array<{
      scenario_id: string;
      processors: string[];
      default_processor: string;
      events: string[];
      description: string;
    }>;
    expect(items.map((s) => s.scenario_id)).toEqual(['chat', 'kbqa', 'agent', 'review', 'import']);
    const byId = Object.fromEntries(items.map((s) => [s.scenario_id, s]));
    expect(byId.kbqa).toMatchObject({ processors: ['llm', 'extractive'], default_processor: 'llm', events: [] });
    expect(byId.review).toMatchObject({ processors: ['llm', 'rules'], events: ['review.completed'] });
    expect(byId.import).toMatchObject({ processors: ['structured', 'llm'], default_processor: 'structured', events: ['import.completed'] });
    for (const s of items) {
      expect(s.description.length).toBeGreaterThan(10);
      expect(s.processors).toContain(s.default_processor);
    }
  });

  it('needs credentials', async () => {
    const res = await api.call('GET', '/v1/combo/scenarios');
    expect(res.status).toBe(401);
    expect(res.json.code).toBe(10002);
  });
});

describe('GET /v1/combo/processors', () => {
  it('lists every processor with its modes and whether it uses a model', async () => {
    const res = await api.call('GET', '/v1/combo/processors', { key: api.adminKey });
    expect(res.json.code).toBe(0);
    const items = res.json.data.items as Array<{
      processor_id: string;
      uses_model: boolean;
      modes: Array<{ mode: string; description: string }>;
    }>;
    const byId = Object.fromEntries(items.map((p) => [p.processor_id, p]));
    expect(Object.keys(byId).sort()).toEqual(['extractive', 'llm', 'rules', 'structured']);
    expect(items.filter((p) => p.uses_model).map((p) => p.processor_id)).toEqual(['llm']);
    expect(byId.llm!.modes.map((m) => m.mode)).toEqual(['default', 'concise', 'detailed']);
    expect(byId.rules!.modes.map((m) => m.mode)).toEqual(['default', 'security']);
    expect(byId.structured!.modes.map((m) => m.mode)).toEqual(['default', 'requirements', 'bugs']);
    for (const p of items) for (const m of p.modes) expect(m.description.length).toBeGreaterThan(5);

    // Every processor a scenario names is described here.
    const scenarios = (await api.call('GET', '/v1/combo/scenarios', { key: api.adminKey })).json.data.items as Array<{
      processors: string[];
    }>;
    for (const s of scenarios) for (const p of s.processors) expect(byId[p]).toBeDefined();
  });

  it('is documented in the OpenAPI document under Metadata', async () => {
    const doc = (await api.call('GET', '/v1/openapi.json')).json;
    for (const [path, schema] of [
      ['/v1/combo/scenarios', 'ScenarioList'],
      ['/v1/combo/processors', 'ProcessorList'],
    ] as const) {
      const op = doc.paths[path].get;
      expect(op.tags).toEqual(['Metadata']);
      expect(JSON.stringify(op.responses['200'])).toContain(`#/components/schemas/${schema}`);
    }
    expect(doc.components.schemas.Processor.properties.uses_model.type).toBe('boolean');
  });
});
