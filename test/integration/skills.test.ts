import { resolveRoute, toolsFor } from '../../completion/plan-run';
import { consoleToken, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
let otherTenant: string;
let member: string;
beforeAll(async () => {
  api = await startTestApi();
  otherTenant = await consoleToken({ tenant_id: 'other-tenant', sub: 'eve', roles: ['admin'] });
  member = await consoleToken({ tenant_id: 'default', sub: 'mia', roles: ['member'] });
});
afterAll(() => api.close());

let counter = 0;
const manifest = (overrides: Record<string, unknown> = {}) => ({
  name: `weather${counter++}`,
  version: '1.0.0',
  description: 'Weather lookups',
  instructions: 'Use the forecast tool for weather questions.',
  tools: [
    {
      name: 'forecast',
      description: 'Forecast for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      http: { method: 'GET', url: 'https://api.example.com/forecast', headers: { 'X-Client': 'combo' } },
    },
  ],
  ...overrides,
});
const install = (body: unknown, key = api.adminKey) => api.call('POST', '/v1/skills/install', { key, body });
const installed = async (overrides: Record<string, unknown> = {}) => {
  const res = await install({ manifest: manifest(overrides) });
  expect(res.json.code).toBe(0);
  return res.json.data;
};
const newSession = async () => {
  const agent = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'skilled' } })).json.data;
  const res = await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} });
  expect(res.json.code).toBe(0);
  return res.json.data.session_id as string;
};
const activate = (skillId: string, sessionId: string, key = api.adminKey) =>
  api.call('POST', `/v1/skills/${skillId}/activate`, { key, body: { session_id: sessionId } });

describe('installing skills', () => {
  it('installs a manifest, filling defaults, and shows it in get and list', async () => {
    const m = manifest();
    const res = await install({ manifest: m });
    expect(res.json.code).toBe(0);
    const created = res.json.data;
    expect(created.skill_id).toMatch(/^skl_[A-Za-z0-9]{20}$/);
    expect(created).toMatchObject({ name: m.name, version: '1.0.0', description: m.description, instructions: m.instructions });
    expect(created.tools).toEqual([{ ...m.tools[0], http: { ...m.tools[0]!.http, timeout_ms: 10_000 } }]);
    expect(Date.parse(created.created_at)).not.toBeNaN();

    const got = await api.call('GET', `/v1/skills/${created.skill_id}`, { key: member });
    expect(got.json).toMatchObject({ code: 0, data: created });

    const list = await api.call('GET', '/v1/skills?page_size=100', { key: member });
    expect(list.json.code).toBe(0);
    expect(list.json.data).toMatchObject({ page: 1, page_size: 100 });
    expect(list.json.data.items).toContainEqual(created);
    expect(list.json.data.total).toBe(list.json.data.items.length);
  });

  it('names the offending field of a bad manifest (10001)', async () => {
    const tool = manifest().tools[0]!;
    const withTool = (changes: Record<string, unknown>) => ({ tools: [{ ...tool, ...changes }] });
    const withHttp = (changes: Record<string, unknown>) => withTool({ http: { ...tool.http, ...changes } });
    const bad: Array<[Record<string, unknown>, string, RegExp?]> = [
      [{ name: 'Weather' }, 'body.manifest.name'],
      [{ name: 'w' }, 'body.manifest.name'],
      [{ name: 'my__skill' }, 'body.manifest.name', /__/],
      [{ version: '1.0' }, 'body.manifest.version'],
      [{ version: 'v1.0.0' }, 'body.manifest.version'],
      [{ description: 'd'.repeat(2001) }, 'body.manifest.description'],
      [{ instructions: 'i'.repeat(20_001) }, 'body.manifest.instructions'],
      [{ surprise: true }, 'body.manifest.surprise', /unknown field/],
      [{ tools: Array.from({ length: 17 }, (_, i) => ({ ...tool, name: `t${i}` })) }, 'body.manifest.tools'],
      [{ tools: [tool, { ...tool }] }, 'body.manifest.tools.1.name', /used twice/],
      [withTool({ name: 'Forecast' }), 'body.manifest.tools.0.name'],
      [withTool({ description: '' }), 'body.manifest.tools.0.description'],
      [withTool({ parameters: { type: 'string' } }), 'body.manifest.tools.0.parameters', /type "object"/],
      [
        withTool({ parameters: { type: 'object', properties: { city: { type: 'strng' } } } }),
        'body.manifest.tools.0.parameters',
        /not a valid JSON Schema/,
      ],
      [withTool({ parameters: { type: 'object', required: 'city' } }), 'body.manifest.tools.0.parameters', /not a valid JSON Schema/],
      [
        withTool({ parameters: { type: 'object', properties: { a: { $ref: 'https://schemas.example.com/a.json' } } } }),
        'body.manifest.tools.0.parameters',
        /not a usable JSON Schema/,
      ],
      [
        withTool({ parameters: { type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' } }),
        'body.manifest.tools.0.parameters',
        /not a usable JSON Schema/,
      ],
      [
        withTool({ parameters: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } }),
        'body.manifest.tools.0.parameters',
        /not a usable JSON Schema/,
      ],
      [
        withTool({ parameters: { type: 'object', $defs: { a: { $id: 'https://x.example/a', type: 'string' } } } }),
        'body.manifest.tools.0.parameters',
        /\$id/,
      ],
      [withTool({ parameters: 'object' }), 'body.manifest.tools.0.parameters'],
      [withHttp({ method: 'TRACE' }), 'body.manifest.tools.0.http.method'],
      [withHttp({ url: 'ftp://example.com/x' }), 'body.manifest.tools.0.http.url', /http or https/],
      [withHttp({ url: 'https://user:pw@example.com/x' }), 'body.manifest.tools.0.http.url', /credentials/],
      [withHttp({ url: 'not a url' }), 'body.manifest.tools.0.http.url'],
      [withHttp({ timeout_ms: 50 }), 'body.manifest.tools.0.http.timeout_ms'],
      [withHttp({ timeout_ms: 30_001 }), 'body.manifest.tools.0.http.timeout_ms'],
      [withHttp({ headers: { Authorization: 'Bearer abc' } }), 'body.manifest.tools.0.http.headers.Authorization', /not allowed/],
      [withHttp({ headers: { 'X-Api-Key': 'abc' } }), 'body.manifest.tools.0.http.headers.X-Api-Key', /not allowed/],
      [withHttp({ headers: { 'X-Fine': 'line\r\nbreak' } }), 'body.manifest.tools.0.http.headers.X-Fine'],
      [{ name: 'a'.repeat(40), tools: [{ ...tool, name: 'b'.repeat(30) }] }, 'body.manifest.tools.0.name', /longer than 64/],
    ];
    for (const [overrides, field, message] of bad) {
      const res = await install({ manifest: manifest(overrides) });
      expect({ overrides, status: res.status, json: res.json }).toMatchObject({ status: 400, json: { code: 10001, data: { field } } });
      expect(res.json.message.startsWith(`${field}: `)).toBe(true);
      if (message) expect(res.json.message).toMatch(message);
    }
    expect((await install(manifest())).json).toMatchObject({ code: 10001, data: { field: 'body.manifest' } });

    const list = await api.call('GET', '/v1/skills?page_size=100', { key: api.adminKey });
    expect(list.json.data.items.map((s: { name: string }) => s.name)).not.toContain('a'.repeat(40));
  });

  it('refuses a second install of the same name and version (10005), not another version', async () => {
    const first = await installed({ name: 'calendar' });
    const again = await install({ manifest: manifest({ name: 'calendar' }) });
    expect(again.json).toMatchObject({ code: 10005, data: { name: 'calendar', version: '1.0.0', skill_id: first.skill_id } });
    const next = await installed({ name: 'calendar', version: '1.1.0' });
    expect(next.skill_id).not.toBe(first.skill_id);
    // Another tenant has a name space of its own.
    expect((await install({ manifest: manifest({ name: 'calendar' }) }, otherTenant)).json.code).toBe(0);
  });

  it('is installed and removed by administrators only', async () => {
    expect((await install({ manifest: manifest() }, member)).json.code).toBe(10003);
    const created = await installed();
    expect((await api.call('DELETE', `/v1/skills/${created.skill_id}`, { key: member })).json.code).toBe(10003);
    expect((await api.call('DELETE', `/v1/skills/${created.skill_id}`, { key: api.adminKey })).json).toMatchObject({
      code: 0,
      data: { deleted: true },
    });
    expect((await api.call('GET', `/v1/skills/${created.skill_id}`, { key: api.adminKey })).json.code).toBe(10004);
    expect((await api.call('DELETE', `/v1/skills/${created.skill_id}`, { key: api.adminKey })).json.code).toBe(10004);
  });

  it("never shows another tenant's skill: 10004", async () => {
    const created = await installed();
    for (const [method, path, body] of [
      ['GET', `/v1/skills/${created.skill_id}`, undefined],
      ['DELETE', `/v1/skills/${created.skill_id}`, undefined],
      ['POST', `/v1/skills/${created.skill_id}/activate`, { session_id: 'ses_unknown0000000000000' }],
    ] as const) {
      expect((await api.call(method, path, { key: otherTenant, body })).json.code).toBe(10004);
    }
    const theirs = await api.call('GET', '/v1/skills?page_size=100', { key: otherTenant });
    expect(theirs.json.data.items.map((s: { skill_id: string }) => s.skill_id)).not.toContain(created.skill_id);
    expect((await api.call('GET', `/v1/skills/${created.skill_id}`, { key: api.adminKey })).json.code).toBe(0);
  });

  describe('on an installation that refuses private addresses', () => {
    let strict: TestApi;
    beforeAll(async () => {
      strict = await startTestApi({ ALLOW_PRIVATE_URLS: 'false' });
    });
    afterAll(() => strict.close());
    const tool = manifest().tools[0]!;
    const withUrls = (...urls: string[]) => ({
      manifest: manifest({ tools: urls.map((url, i) => ({ ...tool, name: `t${i}`, http: { ...tool.http, url } })) }),
    });
    const strictInstall = (body: unknown) => strict.call('POST', '/v1/skills/install', { key: strict.adminKey, body });

    it('refuses private, loopback and reserved tool URLs (10001 naming the tool)', async () => {
      for (const url of [
        'http://127.0.0.1:9/x',
        'http://10.1.2.3/x',
        'http://[::1]/x',
        'http://169.254.169.254/latest',
        'http://localhost/x',
        'http://[2002:a00:1::1]/x',
        'http://100.64.0.1/x',
      ]) {
        const res = await strictInstall(withUrls(url));
        expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.manifest.tools.0.http.url' } });
        expect(res.json.message).toContain('private, loopback or reserved');
      }
      expect((await strict.call('GET', '/v1/skills', { key: strict.adminKey })).json.data.total).toBe(0);
    });

    it('accepts public addresses, and names the one tool whose URL is private', async () => {
      const res = await strictInstall(withUrls('http://93.184.216.34/a', 'http://192.168.1.10/b'));
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.manifest.tools.1.http.url' } });
      expect((await strictInstall(withUrls('http://93.184.216.34/a', 'https://8.8.8.8/b'))).json.code).toBe(0);
    });

    it('is not applied where the installation allows private addresses', async () => {
      expect((await install(withUrls('http://127.0.0.1:9/x', 'http://10.1.2.3/y'))).json.code).toBe(0);
    });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/v1/openapi.json')).json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/skills', '/v1/skills/install', '/v1/skills/{skill_id}', '/v1/skills/{skill_id}/activate']),
    );
    expect(doc.components.schemas.SkillManifest.properties.tools).toBeDefined();
    expect(doc.components.schemas.SkillToolHttp.description).toContain('query string');
  });
});

describe('activating skills on sessions', () => {
  it('records the activation once however often it is repeated', async () => {
    const sessionId = await newSession();
    const a = await installed();
    const b = await installed();
    expect((await activate(a.skill_id, sessionId, member)).json).toEqual({
      code: 0,
      message: 'ok',
      data: { session_id: sessionId, skill_id: a.skill_id, active_skill_ids: [a.skill_id] },
    });
    expect((await activate(b.skill_id, sessionId)).json.data.active_skill_ids).toEqual([a.skill_id, b.skill_id]);
    expect((await activate(a.skill_id, sessionId)).json.data.active_skill_ids).toEqual([a.skill_id, b.skill_id]);

    const stored = await api.services.mongo.db.collection('session_skills').findOne({ _id: sessionId as never });
    expect(stored).toEqual({ _id: sessionId, tenant_id: 'default', skill_ids: [a.skill_id, b.skill_id] });

    const active = await api.services.skills.activeForSession('default', sessionId);
    expect(active.map((s) => s.skill_id)).toEqual([a.skill_id, b.skill_id]);
    expect(await api.services.skills.activeForSession('other-tenant', sessionId)).toEqual([]);

    // What the model is offered, and the way back from the name it calls.
    const offered = toolsFor({ tools: [], kb_ids: [] }, active, resolveRoute(undefined, null, true).route, false);
    expect(offered.map((t) => t.spec.name)).toEqual([`${a.name}__forecast`, `${b.name}__forecast`]);
    expect(offered[0]!.spec).toEqual({
      name: `${a.name}__forecast`,
      description: a.tools[0].description,
      parameters: a.tools[0].parameters,
    });
    expect(offered[1]!.binding).toMatchObject({ kind: 'http', skillId: b.skill_id, tool: { name: 'forecast' } });
  });

  it('replaces another version of the same skill, and forgets deleted skills', async () => {
    const sessionId = await newSession();
    const v1 = await installed({ name: 'translator' });
    const v2 = await installed({ name: 'translator', version: '2.0.0' });
    const other = await installed();
    await activate(v1.skill_id, sessionId);
    await activate(other.skill_id, sessionId);
    expect((await activate(v2.skill_id, sessionId)).json.data.active_skill_ids).toEqual([other.skill_id, v2.skill_id]);

    await api.call('DELETE', `/v1/skills/${other.skill_id}`, { key: api.adminKey });
    expect((await api.services.skills.activeForSession('default', sessionId)).map((s) => s.skill_id)).toEqual([v2.skill_id]);
    expect((await activate(v2.skill_id, sessionId)).json.data.active_skill_ids).toEqual([v2.skill_id]);
  });

  it('answers 10004 for an unknown session or skill and 10005 for an archived session', async () => {
    const s = await installed();
    const sessionId = await newSession();
    expect((await activate(s.skill_id, 'ses_doesnotexist0000000')).json).toMatchObject({ code: 10004, data: { resource: 'session' } });
    expect((await activate('skl_doesnotexist0000000', sessionId)).json).toMatchObject({ code: 10004, data: { resource: 'skill' } });
    expect((await activate(s.skill_id, 'not-a-session')).json).toMatchObject({ code: 10004, data: { resource: 'session' } });
    expect((await activate('nope', sessionId)).json).toMatchObject({ code: 10004, data: { resource: 'skill' } });

    // Another tenant's session does not exist for the caller.
    const theirSkill = (await install({ manifest: manifest() }, otherTenant)).json.data;
    expect((await activate(theirSkill.skill_id, sessionId, otherTenant)).json).toMatchObject({
      code: 10004,
      data: { resource: 'session' },
    });

    expect((await api.call('POST', `/v1/combo/sessions/${sessionId}/archive`, { key: api.adminKey })).json.code).toBe(0);
    expect((await activate(s.skill_id, sessionId)).json).toMatchObject({
      code: 10005,
      data: { session_id: sessionId, status: 'archived' },
    });
    expect(await api.services.skills.activeForSession('default', sessionId)).toEqual([]);
  });
});
