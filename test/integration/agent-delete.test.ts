import { ScheduleNotFoundError } from '@temporalio/client';
import { startTestApi, type TestApi } from '../support/api';

let api: TestApi;
/** Schedules outlive the test's database on the shared dev server: any left behind is removed. */
const cronIds: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
});
afterAll(async () => {
  for (const cronId of cronIds) {
    await api.services.temporal.schedule
      .getHandle(`cron-${cronId}`)
      .delete()
      .catch((err: unknown) => {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      });
  }
  await api.close();
});

const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, body });
const createAgent = async () => (await call('POST', '/v1/combo/agents', { name: 'Busy' })).json.data.agent_id as string;
async function createCron(agentId: string): Promise<string> {
  const res = await call('POST', '/v1/cron', { name: 'Nightly', cron: '0 3 * * *', agent_id: agentId, question: 'Summarise.' });
  expect(res.json).toMatchObject({ code: 0 });
  cronIds.push(res.json.data.cron_id);
  return res.json.data.cron_id;
}
async function createTrigger(agentId: string): Promise<string> {
  const res = await call('POST', '/v1/event-trigger', {
    name: 'On push',
    trigger: { source: 'git-b', match: { event: 'push' }, action: { agent_id: agentId, session_template: 'default', inputs: {} } },
  });
  expect(res.json).toMatchObject({ code: 0 });
  return res.json.data.trigger_id;
}
const scheduleExists = (cronId: string) =>
  api.services.temporal.schedule
    .getHandle(`cron-${cronId}`)
    .describe()
    .then(
      () => true,
      (err: unknown) => {
        if (err instanceof ScheduleNotFoundError) return false;
        throw err;
      },
    );

describe('deleting an agent that cron jobs or triggers run', () => {
  it('is refused with 10005 naming them, and changes nothing', async () => {
    const agentId = await createAgent();
    const cronId = await createCron(agentId);
    const triggerId = await createTrigger(agentId);
    const session = (await call('POST', `/v1/combo/agents/${agentId}/sessions`, {})).json.data.session_id;

    const refused = await call('DELETE', `/v1/combo/agents/${agentId}`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 10005, data: { cron_ids: [cronId], trigger_ids: [triggerId] } });
    const explicitFalse = await call('DELETE', `/v1/combo/agents/${agentId}?cascade=false`);
    expect(explicitFalse.json.code).toBe(10005);

    expect((await call('GET', `/v1/combo/agents/${agentId}`)).json.code).toBe(0);
    expect((await call('GET', `/v1/combo/sessions/${session}`)).json.code).toBe(0);
    expect((await call('GET', `/v1/cron/${cronId}`)).json.data.schedule_exists).toBe(true);
    expect((await call('GET', `/v1/event-trigger/${triggerId}`)).json.code).toBe(0);
  });

  it('with cascade=true deletes the jobs, their Temporal Schedules and the triggers too', async () => {
    const agentId = await createAgent();
    const cronIdsOfAgent = [await createCron(agentId), await createCron(agentId)];
    const triggerId = await createTrigger(agentId);
    const otherAgent = await createAgent();
    const othersCron = await createCron(otherAgent);
    const othersTrigger = await createTrigger(otherAgent);

    const res = await call('DELETE', `/v1/combo/agents/${agentId}?cascade=true`);
    expect(res.json).toEqual({ code: 0, data: { deleted: true }, message: 'ok' });

    expect((await call('GET', `/v1/combo/agents/${agentId}`)).json.code).toBe(10004);
    for (const cronId of cronIdsOfAgent) {
      expect((await call('GET', `/v1/cron/${cronId}`)).json.code).toBe(10004);
      expect(await scheduleExists(cronId)).toBe(false);
    }
    expect((await call('GET', `/v1/event-trigger/${triggerId}`)).json.code).toBe(10004);
    const db = api.services.mongo.db;
    expect(await db.collection('cron_jobs').countDocuments({ agent_id: agentId })).toBe(0);
    expect(await db.collection('event_triggers').countDocuments({ 'trigger.action.agent_id': agentId })).toBe(0);

    // Another agent's jobs and triggers are untouched.
    expect(await scheduleExists(othersCron)).toBe(true);
    expect((await call('GET', `/v1/event-trigger/${othersTrigger}`)).json.code).toBe(0);
  });

  it('without dependents deletes as before; an unknown agent or a bad cascade value is refused', async () => {
    const agentId = await createAgent();
    expect((await call('DELETE', `/v1/combo/agents/${agentId}`)).json).toEqual({ code: 0, data: { deleted: true }, message: 'ok' });
    expect((await call('DELETE', `/v1/combo/agents/${agentId}?cascade=true`)).json.code).toBe(10004);
    const bad = await call('DELETE', `/v1/combo/agents/${await createAgent()}?cascade=yes`);
    expect(bad.json).toMatchObject({ code: 10001, data: { field: 'query.cascade' } });
  });
});
