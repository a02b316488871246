import { startTestApi, type TestApi } from '../support/api';

/**
 * Lists of named things (agents, knowledge bases, integrations, skills) narrowed on the server by a
 * part of the name, ignoring letter case; the text is matched literally, never as a pattern.
 */
let api: TestApi;
beforeAll(async () => {
  // Its own database: the counts below are this file's only.
  api = await startTestApi({});
});
afterAll(async () => {
  await api.close();
});

const post = async (path: string, body: unknown) => {
  const res = await api.call('POST', path, { key: api.adminKey, body });
  expect(res.json.code).toBe(0);
  return res.json.data;
};
const namesOf = async (path: string, name: string) => {
  const res = await api.call('GET', `${path}?name=${encodeURIComponent(name)}&page_size=100`, { key: api.adminKey });
  expect(res.json.code).toBe(0);
  return {
    names: (res.json.data.items as { name: string }[]).map((i) => i.name).sort(),
    total: res.json.data.total as number,
  };
};

it('narrows agents, knowledge bases and integrations by a part of their name, ignoring case, literally', async () => {
  for (const name of ['Support desk', 'support (night)', 'Billing']) {
    await post('/v1/combo/agents', { name });
    await post('/v1/kb', { name });
    await post('/v1/integrations', { channel: 'generic', name });
  }
  for (const path of ['/v1/combo/agents', '/v1/kb', '/v1/integrations']) {
    expect(await namesOf(path, 'SUPPORT')).toEqual({ names: ['Support desk', 'support (night)'], total: 2 });
    // Pattern characters are text: "(night)" is matched as written, ".*" matches nothing here.
    expect(await namesOf(path, '(night)')).toEqual({ names: ['support (night)'], total: 1 });
    expect(await namesOf(path, '.*')).toEqual({ names: [], total: 0 });
    expect((await api.call('GET', path, { key: api.adminKey })).json.data.total).toBe(3);
    expect((await api.call('GET', `${path}?name=`, { key: api.adminKey })).json).toMatchObject({
      code: 10001,
      data: { field: 'query.name' },
    });
    expect((await api.call('GET', `${path}?name=${'x'.repeat(101)}`, { key: api.adminKey })).json.code).toBe(10001);
  }
});

it('narrows skills by name, and an agent list asked again after a create shows the new one', async () => {
  const tool = {
    name: 'lookup',
    description: 'Look something up',
    parameters: { type: 'object', properties: {} },
    http: { method: 'GET', url: 'https://api.example.com/lookup' },
  };
  for (const name of ['weather_eu', 'weather_us', 'tides']) {
    await post('/v1/skills/install', {
      manifest: { name, version: '1.0.0', description: name, instructions: 'Use it.', tools: [tool] },
    });
  }
  expect(await namesOf('/v1/skills', 'Weather')).toEqual({ names: ['weather_eu', 'weather_us'], total: 2 });

  // A filtered agent list read before a create does not hide the new agent afterwards.
  expect((await namesOf('/v1/combo/agents', 'Desk')).total).toBe(1);
  await post('/v1/combo/agents', { name: 'Front desk' });
  expect(await namesOf('/v1/combo/agents', 'desk')).toEqual({ names: ['Front desk', 'Support desk'], total: 2 });
});
