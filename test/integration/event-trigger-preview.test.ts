import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken } from '../../common/ids';
import { signPayload } from '../../common/signature';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/**
 * POST /v1/event-trigger/preview on the real stack, held to what a real signed inbound call does
 * with the same sample and trigger: the same normalised event, the same task (its question reaches
 * the scripted model) or the same refusal, while the preview itself starts and stores nothing.
 */
const fixture = (channel: string, file: string) => readFileSync(join(__dirname, '..', 'fixtures', 'webhooks', channel, file), 'utf8');
const PULL_REQUEST = fixture('git-b', 'pull_request.opened.json');
const GITHUB_HEADERS = { 'X-GitHub-Event': 'pull_request' };

const model = new ScriptedUpstream();
let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let agentId: string;
let integration: { integration_id: string; secret: string };

beforeAll(async () => {
  const modelUrl = await model.start();
  model.reply = () => ({ body: chatAnswer('Looked at it.') });
  api = await startTestApi({ LLM_BASE_URL: modelUrl, LLM_MODEL: 'scripted-model', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  worker = await startTestWorker(api, { dispatcher: false });
  agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Reviewer' } })).json.data.agent_id;
  integration = (await api.call('POST', '/v1/integrations', { key: api.adminKey, body: { channel: 'git-b' } })).json.data;
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await model.stop();
});

const definition = (inputs: Record<string, string>, match: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  source: 'git-b',
  match: { event: 'pull_request.opened', project_regex: '^Codertocat/', ...match },
  action: { agent_id: agentId, session_template: 'default', inputs },
  ...extra,
});
const preview = (body: Record<string, unknown>, key = api.adminKey) => api.call('POST', '/v1/event-trigger/preview', { key, body });
/** The same sample as a real, signed inbound call. */
const sendInbound = (payload: string, eventId: string, headers: Record<string, string> = GITHUB_HEADERS) => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return api.call('POST', `/v1/webhook/git-b?integration_id=${integration.integration_id}`, {
    rawBody: payload,
    headers: {
      'content-type': 'application/json',
      'x-combo-timestamp': timestamp,
      'x-combo-event-id': eventId,
      'x-combo-signature': signPayload(integration.secret, timestamp, payload),
      ...headers,
    },
  });
};
const saveTrigger = async (trigger: Record<string, unknown>) => {
  const res = await api.call('POST', '/v1/event-trigger', { key: api.adminKey, body: { name: `t-${randomToken(6)}`, trigger } });
  expect(res.json.code).toBe(0);
  return res.json.data.trigger_id as string;
};
const counts = async () => ({
  inbound: await api.services.mongo.db.collection('inbound_events').countDocuments(),
  triggers: await api.services.mongo.db.collection('event_triggers').countDocuments(),
  sessions: await api.services.mongo.db.collection('sessions').countDocuments(),
});

it('answers the normalised event, the match and the task exactly as a real inbound call, and starts nothing', async () => {
  const inputs = { title: '{{ event.payload.pull_request.title }}', link: '{{ event.url }}', who: '{{ event.actor }}' };
  const eventId = `delivery-${randomToken(8)}`;
  const before = await counts();
  const res = await preview({ trigger: definition(inputs), payload: JSON.parse(PULL_REQUEST), headers: GITHUB_HEADERS, event_id: eventId });
  expect(res.json.code).toBe(0);
  const shown = res.json.data;
  expect(shown.event).toMatchObject({
    event_id: eventId,
    source: 'git-b',
    event: 'pull_request.opened',
    project: 'Codertocat/Hello-World',
    actor: 'Codertocat',
    url: 'https://github.com/Codertocat/Hello-World/pull/2',
    payload: JSON.parse(PULL_REQUEST),
  });
  expect(Math.abs(Date.parse(shown.event.received_at) - Date.now())).toBeLessThan(60_000);
  expect(shown.matches).toBe(true);
  expect(shown.conditions.map((c: { condition: string; passed: boolean }) => [c.condition, c.passed])).toEqual([
    ['enabled', true],
    ['source', true],
    ['integration', true],
    ['event', true],
    ['project_regex', true],
  ]);
  expect(shown.task).toMatchObject({
    agent_id: agentId,
    session_template: 'default',
    inputs: {
      title: 'Update the README with new information.',
      link: 'https://github.com/Codertocat/Hello-World/pull/2',
      who: 'Codertocat',
    },
  });
  expect(shown.task.question).toContain('Update the README with new information.');
  expect(shown).toMatchObject({ error: null, would_start: true });
  // Nothing stored, nothing started.
  expect(await counts()).toEqual(before);

  // The real call with the same sample and a trigger saved with the same definition.
  const triggerId = await saveTrigger(definition(inputs));
  const real = await sendInbound(PULL_REQUEST, eventId);
  expect(real.json.code).toBe(0);
  const { tasks, duplicate: _duplicate, received_at: _receivedAt, ...realEvent } = real.json.data;
  const { payload: _payload, received_at: _shownAt, ...shownEvent } = shown.event;
  expect(realEvent).toEqual(shownEvent);
  expect(tasks).toEqual([expect.objectContaining({ trigger_id: triggerId, started: true })]);
  await api.services.temporal.workflow.getHandle(tasks[0].workflow_id).result();
  const asked = await eventually(async () =>
    model.requests
      .map((r) => (r.body as { messages?: Array<{ role: string; content: string }> }).messages ?? [])
      .find((messages) => messages.some((m) => m.role === 'user' && m.content === shown.task.question)),
  );
  expect(asked).toBeDefined();
  await api.call('DELETE', `/v1/event-trigger/${triggerId}`, { key: api.adminKey });
});

it('says which condition fails and why', async () => {
  const sample = { payload: JSON.parse(PULL_REQUEST), headers: GITHUB_HEADERS };
  const failing = async (body: Record<string, unknown>) => {
    const res = await preview({ ...sample, ...body });
    expect(res.json.code).toBe(0);
    expect(res.json.data.matches).toBe(false);
    expect(res.json.data.would_start).toBe(false);
    return res.json.data.conditions.filter((c: { passed: boolean }) => !c.passed) as Array<{ condition: string; detail: string }>;
  };
  expect(await failing({ trigger: definition({}, { event: 'push' }) })).toEqual([
    { condition: 'event', passed: false, detail: 'the event is pull_request.opened; match.event is push' },
  ]);
  const [regex] = await failing({ trigger: definition({}, { project_regex: '^acme/' }) });
  expect(regex).toMatchObject({
    condition: 'project_regex',
    detail: expect.stringContaining('not found in the project "Codertocat/Hello-World"'),
  });
  expect(await failing({ trigger: definition({}), enabled: false })).toEqual([
    { condition: 'enabled', passed: false, detail: 'the trigger is disabled' },
  ]);
  // The sample on another channel (Gitea reads the same payload and header alike): only the source differs.
  const elsewhere = await failing({ trigger: definition({}), source: 'git-c' });
  expect(elsewhere).toEqual([{ condition: 'source', passed: false, detail: 'the event came through git-c; the trigger listens to git-b' }]);
  // A trigger hearing one integration, the sample through another of the channel.
  const other = (await api.call('POST', '/v1/integrations', { key: api.adminKey, body: { channel: 'git-b' } })).json.data;
  const [integrationCondition] = await failing({
    trigger: definition({}, {}, { integration_id: integration.integration_id }),
    integration_id: other.integration_id,
  });
  expect(integrationCondition).toMatchObject({ condition: 'integration', detail: expect.stringContaining(other.integration_id) });
  // ... and through its own by default.
  const own = await preview({ ...sample, trigger: definition({}, {}, { integration_id: integration.integration_id }) });
  expect(own.json.data.matches).toBe(true);

  // Without the event header the channel does not know the event, as a real call would not.
  const headerless = await preview({ payload: JSON.parse(PULL_REQUEST), trigger: definition({}) });
  expect(headerless.json.data.event).toMatchObject({ event: 'unknown', project: null });
  expect(
    headerless.json.data.conditions.filter((c: { passed: boolean }) => !c.passed).map((c: { condition: string }) => c.condition),
  ).toEqual(['event', 'project_regex']);
});

it('names the missing input path in the words of the real dispatch', async () => {
  const inputs = { title: '{{ event.payload.pull_request.title }}', milestone: '{{ event.payload.pull_request.milestone.title }}' };
  const shown = (await preview({ trigger: definition(inputs), payload: JSON.parse(PULL_REQUEST), headers: GITHUB_HEADERS })).json.data;
  expect(shown).toMatchObject({ matches: true, task: null, would_start: false });
  expect(shown.error).toContain('input milestone: event.payload.pull_request.milestone.title');

  const triggerId = await saveTrigger(definition(inputs));
  const real = await sendInbound(PULL_REQUEST, `delivery-${randomToken(8)}`);
  expect(real.json.data.tasks).toEqual([expect.objectContaining({ trigger_id: triggerId, started: false, error: shown.error })]);
  await api.call('DELETE', `/v1/event-trigger/${triggerId}`, { key: api.adminKey });
});

it('fills a generic sample from its top-level fields', async () => {
  const res = await preview({
    trigger: {
      source: 'generic',
      match: { event: 'build.finished' },
      action: { agent_id: agentId, session_template: 'default', inputs: { status: '{{ event.payload.status }}' } },
    },
    payload: { event: 'build.finished', project: 'acme/app', actor: 'ci', status: 'green', nested: { n: 1 } },
  });
  expect(res.json.data).toMatchObject({
    event: { source: 'generic', event: 'build.finished', project: 'acme/app', actor: 'ci', url: null, event_id: 'evt_preview' },
    matches: true,
    task: { inputs: { status: 'green' } },
    would_start: true,
  });
});

it('checks the definition as creating a trigger does, and is open to members of the tenant', async () => {
  const sample = { payload: { a: 1 } };
  const refused: Array<[Record<string, unknown>, string]> = [
    [
      { ...sample, trigger: { ...definition({}), action: { agent_id: 'agt_missing', session_template: 'default' } } },
      'body.trigger.action.agent_id',
    ],
    [{ ...sample, trigger: definition({}, { project_regex: '(a' }) }, 'body.trigger.match.project_regex'],
    [{ ...sample, trigger: definition({ x: '{{ event.foo }}' }) }, 'body.trigger.action.inputs.x'],
    [{ trigger: definition({}), payload: [1, 2] }, 'body.payload'],
    [{ trigger: definition({}) }, 'body.payload'],
    [{ ...sample, trigger: definition({}), colour: 'red' }, 'body.colour'],
    [{ ...sample, trigger: definition({}), integration_id: 'int_nothere' }, 'body.integration_id'],
    [{ ...sample, trigger: definition({}), headers: { 'bad header': 'x' } }, 'body.headers.bad header'],
  ];
  for (const [body, field] of refused) {
    const res = await preview(body);
    expect({ field, json: res.json }).toMatchObject({ field, json: { code: 10001, data: { field } } });
  }
  const workchat = (await api.call('POST', '/v1/integrations', { key: api.adminKey, body: { channel: 'workchat-a' } })).json.data;
  const foreign = await preview({ ...sample, trigger: definition({}), integration_id: workchat.integration_id });
  expect(foreign.json).toMatchObject({ code: 10001, data: { field: 'body.integration_id' } });
  expect(foreign.json.message).toContain('workchat-a');

  const member = await consoleToken({ tenant_id: 'default', sub: 'm', roles: ['member'] });
  expect((await preview({ ...sample, trigger: definition({}) }, member)).json.code).toBe(0);
  const stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] });
  expect((await preview({ ...sample, trigger: definition({}) }, stranger)).json).toMatchObject({
    code: 10001,
    data: { field: 'body.trigger.action.agent_id' },
  });
  const anonymous = await api.call('POST', '/v1/event-trigger/preview', { body: { ...sample, trigger: definition({}) } });
  expect(anonymous.json.code).toBe(10002);
});
