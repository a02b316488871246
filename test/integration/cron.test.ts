import { ScheduleNotFoundError } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { AgentId, CronId, TenantId } from '../../common/search-attributes';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startTestWorker } from '../support/worker';

let api: TestApi;
let agentId: string;
/** Schedules live on the shared dev server beyond this test's database: every one made here is removed at the end. */
const created: string[] = [];

beforeAll(async () => {
  api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Scheduled' } })).json.data.agent_id;
});
afterAll(async () => {
  const temporal = api.services.temporal;
  for (const cronId of created) {
    const handle = temporal.schedule.getHandle(`cron-${cronId}`);
    try {
      const { info } = await handle.describe();
      for (const run of info.runningActions)
        await temporal.workflow
          .getHandle(run.workflow.workflowId)
          .terminate('test cleanup')
          .catch(() => undefined);
      await handle.delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }
  await api.close();
});

const admin = () => api.adminKey;
const schedule = (cronId: string) => api.services.temporal.schedule.getHandle(`cron-${cronId}`);
async function createJob(body: Record<string, unknown>) {
  const res = await api.call('POST', '/v1/cron', {
    key: admin(),
    body: { name: 'Weekday digest', cron: '0 9 * * 1-5', agent_id: agentId, question: 'Summarise yesterday.', ...body },
  });
  expect(res.json).toMatchObject({ code: 0 });
  created.push(res.json.data.cron_id);
  return res.json.data;
}
const getJob = async (cronId: string) => (await api.call('GET', `/v1/cron/${cronId}`, { key: admin() })).json.data;

/** Day of month, weekday and time of day of an instant on a wall clock in `timeZone`, e.g. `1 Mon 09:00`. */
function wallClock(iso: string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    day: 'numeric',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)!.value;
  return `${part('day')} ${part('weekday')} ${part('hour')}:${part('minute')}`;
}

describe('creating a job', () => {
  it('makes a Temporal Schedule with the expression, time zone, overlap policy and an agent-task action', async () => {
    const job = await createJob({ timezone: 'Europe/Berlin', overlap: 'buffer_one', inputs: { topic: 'sales' } });
    expect(job).toMatchObject({
      cron_id: expect.stringMatching(/^crn_/),
      name: 'Weekday digest',
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      agent_id: agentId,
      question: 'Summarise yesterday.',
      inputs: { topic: 'sales' },
      session_template: 'default',
      overlap: 'buffer_one',
      paused: false,
      schedule_id: `cron-${job.cron_id}`,
      schedule_exists: true,
      recent_runs: [],
    });

    const described = await schedule(job.cron_id).describe();
    expect(described.spec.timezone).toBe('Europe/Berlin');
    expect(described.spec.calendars).toHaveLength(1);
    expect(described.spec.calendars![0]).toMatchObject({
      minute: [{ start: 0, end: 0, step: 1 }],
      hour: [{ start: 9, end: 9, step: 1 }],
      dayOfWeek: [{ start: 'MONDAY', end: 'FRIDAY', step: 1 }],
    });
    expect(described.policies).toMatchObject({ overlap: 'BUFFER_ONE', catchupWindow: 60_000 });
    expect(described.state.paused).toBe(false);
    expect(described.memo).toEqual({ name: 'Weekday digest' });
    expect(described.typedSearchAttributes.get(CronId)).toBe(job.cron_id);
    expect(described.typedSearchAttributes.get(TenantId)).toBe('default');
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'agentTaskWorkflow',
      workflowId: `cron-task-${job.cron_id}`,
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      args: [
        {
          tenantId: 'default',
          origin: `cron:${job.cron_id}`,
          key: 'scheduled',
          agentId,
          sessionTemplate: 'default',
          inputs: { topic: 'sales' },
          question: 'Summarise yesterday.',
          event: null,
        },
      ],
    });
    const actionAttributes = described.action.typedSearchAttributes as TypedSearchAttributes;
    expect([actionAttributes.get(TenantId), actionAttributes.get(AgentId), actionAttributes.get(CronId)]).toEqual([
      'default',
      agentId,
      job.cron_id,
    ]);

    // The next runs, read back from Temporal, are weekdays at 09:00 in Berlin.
    expect(job.next_run_times).toHaveLength(5);
    expect(new Date(job.next_run_times[0]).getTime()).toBeGreaterThan(Date.now());
    expect([...job.next_run_times].sort()).toEqual(job.next_run_times);
    for (const at of job.next_run_times) expect(wallClock(at, 'Europe/Berlin')).toMatch(/^\d+ (Mon|Tue|Wed|Thu|Fri) 09:00$/);
  });

  it('defaults to UTC, skip, the default template and running; writes the zone as Temporal spells it', async () => {
    const job = await createJob({ cron: '30 2 * * *', timezone: 'utc' });
    expect(job).toMatchObject({ timezone: 'UTC', overlap: 'skip', session_template: 'default', paused: false, inputs: {} });
    const described = await schedule(job.cron_id).describe();
    expect(described.spec.timezone).toBe('UTC');
    expect(described.policies.overlap).toBe('SKIP');
    for (const at of job.next_run_times) expect(at).toMatch(/T02:30:00\.000Z$/);
  });

  it('refuses a bad expression, time zone, agent or option with 10001 naming the field, and keeps nothing', async () => {
    const stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] });
    const foreignAgent = (await api.call('POST', '/v1/combo/agents', { key: stranger, body: { name: 'Not yours' } })).json.data.agent_id;
    const before = (await api.call('GET', '/v1/cron', { key: admin() })).json.data.total;
    const cases = [
      [{ cron: '0 9 * *' }, 'body.cron', /expected 5 fields/],
      [{ cron: '61 * * * *' }, 'body.cron', /minute: 61 is outside 0-59/],
      [{ cron: '0 0 31 2 *' }, 'body.cron', /never fires/],
      [{ cron: '0 0 * * MON#1' }, 'body.cron', /day of week/],
      [{ timezone: 'Mars/Olympus' }, 'body.timezone', /time zone/],
      // Known to this runtime's ICU but not to Temporal's zone database: Temporal's refusal, mapped.
      [{ timezone: 'SystemV/EST5' }, 'body.timezone', /unknown time zone/],
      [{ agent_id: 'agt_doesnotexist0000000000' }, 'body.agent_id', /does not exist/],
      [{ agent_id: foreignAgent }, 'body.agent_id', /does not exist/],
      [{ session_template: 'nightly-magic' }, 'body.session_template', /./],
      [{ overlap: 'sometimes' }, 'body.overlap', /./],
      [{ question: '' }, 'body.question', /./],
      [{ inputs: { 'Bad Name': 'x' } }, 'body.inputs.Bad Name', /input names/],
      [{ inputs: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`in_${i}`, 'x'])) }, 'body.inputs', /at most 20/],
      [{ every: '5m' }, 'body.every', /unknown field/],
    ] as const;
    for (const [patch, field, message] of cases) {
      const res = await api.call('POST', '/v1/cron', {
        key: admin(),
        body: { name: 'bad', cron: '0 9 * * *', agent_id: agentId, question: 'q', ...patch },
      });
      expect({ patch, status: res.status, json: res.json }).toMatchObject({ status: 400, json: { code: 10001, data: { field } } });
      expect(res.json.message).toMatch(message);
    }
    expect((await api.call('GET', '/v1/cron', { key: admin() })).json.data.total).toBe(before);
  });
});

describe('reading jobs', () => {
  it("lists the tenant's jobs newest first and gets one, each with its next run times", async () => {
    const stranger = await consoleToken({ tenant_id: 'list-elsewhere', sub: 'x', roles: ['admin'] });
    const other = await api.call('POST', '/v1/combo/agents', { key: stranger, body: { name: 'Theirs' } });
    const theirs = await api.call('POST', '/v1/cron', {
      key: stranger,
      body: { name: 'theirs', cron: '0 0 1 1 *', agent_id: other.json.data.agent_id, question: 'q' },
    });
    created.push(theirs.json.data.cron_id);

    const older = await createJob({ name: 'hourly', cron: '15 * * * *' });
    const newer = await createJob({ name: 'monthly', cron: '0 6 1 * *', timezone: 'America/New_York' });
    const list = (await api.call('GET', '/v1/cron?page_size=2', { key: admin() })).json.data;
    expect(list.items.map((j: { cron_id: string }) => j.cron_id)).toEqual([newer.cron_id, older.cron_id]);
    expect(list.page_size).toBe(2);
    expect(list.total).toBeGreaterThanOrEqual(2);
    const all = (await api.call('GET', '/v1/cron?page_size=100', { key: admin() })).json.data.items;
    expect(all.map((j: { cron_id: string }) => j.cron_id)).not.toContain(theirs.json.data.cron_id);

    const [listedNewer, listedOlder] = list.items;
    for (const at of listedOlder.next_run_times) expect(at).toMatch(/:15:00\.000Z$/);
    expect(listedNewer.next_run_times).toHaveLength(5);
    for (const at of listedNewer.next_run_times) expect(wallClock(at, 'America/New_York')).toMatch(/^1 \w{3} 06:00$/);

    const one = await getJob(newer.cron_id);
    expect(one).toMatchObject({
      cron_id: newer.cron_id,
      name: 'monthly',
      timezone: 'America/New_York',
      next_run_times: listedNewer.next_run_times,
      paused: false,
    });
  });

  it('pauses and resumes a job: no next runs while paused', async () => {
    const job = await createJob({ cron: '*/10 * * * *', paused: true });
    expect(job).toMatchObject({ paused: true, next_run_times: [] });
    expect((await schedule(job.cron_id).describe()).state.paused).toBe(true);

    const resumed = await api.call('PUT', `/v1/cron/${job.cron_id}`, { key: admin(), body: { paused: false } });
    expect(resumed.json.data).toMatchObject({ paused: false });
    expect(resumed.json.data.next_run_times).toHaveLength(5);
    expect((await schedule(job.cron_id).describe()).state.paused).toBe(false);

    await api.call('PUT', `/v1/cron/${job.cron_id}`, { key: admin(), body: { paused: true } });
    expect(await getJob(job.cron_id)).toMatchObject({ paused: true, next_run_times: [] });
    expect((await api.call('PUT', `/v1/cron/${job.cron_id}`, { key: admin(), body: { paused: false, name: '' } })).json).toMatchObject({
      code: 10001,
      data: { field: 'body.name' },
    });
  });
});

describe('changing a job', () => {
  it('changes its settings in place: the schedule follows the new expression, zone, agent, question and overlap', async () => {
    const job = await createJob({ inputs: { topic: 'sales' } });
    const otherAgent = (await api.call('POST', '/v1/combo/agents', { key: admin(), body: { name: 'Night shift' } })).json.data.agent_id;
    const changed = await api.call('PUT', `/v1/cron/${job.cron_id}`, {
      key: admin(),
      body: {
        name: 'Nightly digest',
        cron: '30 22 * * *',
        timezone: 'america/new_york',
        agent_id: otherAgent,
        question: 'Summarise today.',
        inputs: { topic: 'support' },
        overlap: 'buffer_all',
      },
    });
    expect(changed.json).toMatchObject({
      code: 0,
      data: {
        cron_id: job.cron_id,
        name: 'Nightly digest',
        cron: '30 22 * * *',
        timezone: 'America/New_York',
        agent_id: otherAgent,
        question: 'Summarise today.',
        inputs: { topic: 'support' },
        session_template: 'default',
        overlap: 'buffer_all',
        paused: false,
        created_at: job.created_at,
      },
    });
    expect(changed.json.data.updated_at > job.updated_at).toBe(true);
    for (const at of changed.json.data.next_run_times) expect(wallClock(at, 'America/New_York')).toMatch(/ 22:30$/);

    const described = await schedule(job.cron_id).describe();
    expect(described.spec.timezone).toBe('America/New_York');
    expect(described.spec.calendars![0]).toMatchObject({
      minute: [{ start: 30, end: 30, step: 1 }],
      hour: [{ start: 22, end: 22, step: 1 }],
    });
    expect(described.policies.overlap).toBe('BUFFER_ALL');
    expect(described.state.paused).toBe(false);
    expect(described.action).toMatchObject({
      args: [{ agentId: otherAgent, question: 'Summarise today.', inputs: { topic: 'support' }, origin: `cron:${job.cron_id}` }],
    });
    expect((described.action.typedSearchAttributes as TypedSearchAttributes).get(AgentId)).toBe(otherAgent);
    expect(described.typedSearchAttributes.get(AgentId)).toBe(otherAgent);
    expect(await getJob(job.cron_id)).toMatchObject({ name: 'Nightly digest', cron: '30 22 * * *', agent_id: otherAgent });
  });

  it('keeps a pause made in Temporal when the change does not name `paused`, and pauses with other changes', async () => {
    const job = await createJob({ cron: '*/10 * * * *' });
    await schedule(job.cron_id).pause('paused by an operator in the Temporal UI');
    const renamed = await api.call('PUT', `/v1/cron/${job.cron_id}`, { key: admin(), body: { question: 'Anything new?' } });
    expect(renamed.json.data).toMatchObject({ question: 'Anything new?', paused: true, next_run_times: [] });
    expect((await schedule(job.cron_id).describe()).state).toMatchObject({
      paused: true,
      note: 'paused by an operator in the Temporal UI',
    });

    const resumed = await api.call('PUT', `/v1/cron/${job.cron_id}`, { key: admin(), body: { paused: false, cron: '*/15 * * * *' } });
    expect(resumed.json.data).toMatchObject({ paused: false, cron: '*/15 * * * *' });
    expect(resumed.json.data.next_run_times).toHaveLength(5);
    for (const at of resumed.json.data.next_run_times) expect(new Date(at).getUTCMinutes() % 15).toBe(0);
  });

  it('refuses an empty change, a bad setting or an unknown agent with 10001 and changes nothing', async () => {
    const job = await createJob({});
    const put = (body: Record<string, unknown>) => api.call('PUT', `/v1/cron/${job.cron_id}`, { key: admin(), body });
    expect((await put({})).json.code).toBe(10001);
    expect((await put({ cron: '61 * * * *' })).json).toMatchObject({ code: 10001, data: { field: 'body.cron' } });
    expect((await put({ timezone: 'Mars/Base' })).json).toMatchObject({ code: 10001, data: { field: 'body.timezone' } });
    expect((await put({ agent_id: 'agt_missing0000000000000', question: 'x' })).json).toMatchObject({
      code: 10001,
      data: { field: 'body.agent_id' },
    });
    expect((await put({ cron_id: 'crn_other' })).json.code).toBe(10001);
    const unchanged = await getJob(job.cron_id);
    expect(unchanged).toMatchObject({ cron: job.cron, question: job.question, agent_id: agentId, updated_at: job.updated_at });
    expect((await schedule(job.cron_id).describe()).spec.calendars![0]).toMatchObject({ hour: [{ start: 9, end: 9, step: 1 }] });
  });
});

describe('another tenant', () => {
  it('cannot see, change, run or delete a job (10004)', async () => {
    const job = await createJob({});
    const stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] });
    const calls = [
      ['GET', `/v1/cron/${job.cron_id}`, undefined],
      ['PUT', `/v1/cron/${job.cron_id}`, { paused: true }],
      ['POST', `/v1/cron/${job.cron_id}/trigger`, undefined],
      ['POST', `/v1/cron/${job.cron_id}/backfill`, { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' }],
      ['DELETE', `/v1/cron/${job.cron_id}`, undefined],
    ] as const;
    for (const [method, path, body] of calls) {
      const res = await api.call(method, path, { key: stranger, body });
      expect({ method, status: res.status, code: res.json.code }).toEqual({ method, status: 404, code: 10004 });
    }
    expect((await schedule(job.cron_id).describe()).state.paused).toBe(false);
    expect((await getJob(job.cron_id)).cron_id).toBe(job.cron_id);
  });
});

describe('deleting a job', () => {
  it('removes its schedule, then the job', async () => {
    const job = await createJob({});
    const res = await api.call('DELETE', `/v1/cron/${job.cron_id}`, { key: admin() });
    expect(res.json).toMatchObject({ code: 0, data: { deleted: true } });
    await expect(schedule(job.cron_id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect((await api.call('GET', `/v1/cron/${job.cron_id}`, { key: admin() })).json.code).toBe(10004);
    expect((await api.call('DELETE', `/v1/cron/${job.cron_id}`, { key: admin() })).json.code).toBe(10004);
  });

  it('shows a job whose schedule was removed outside the service as such, and still deletes it', async () => {
    const job = await createJob({});
    await schedule(job.cron_id).delete();
    expect(await getJob(job.cron_id)).toMatchObject({ schedule_exists: false, next_run_times: [], recent_runs: [] });
    expect((await api.call('POST', `/v1/cron/${job.cron_id}/trigger`, { key: admin() })).json.code).toBe(10005);
    const backfill = await api.call('POST', `/v1/cron/${job.cron_id}/backfill`, {
      key: admin(),
      body: { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' },
    });
    expect(backfill.json.code).toBe(10005);
    expect((await api.call('DELETE', `/v1/cron/${job.cron_id}`, { key: admin() })).json).toMatchObject({ code: 0 });
    expect((await api.call('GET', `/v1/cron/${job.cron_id}`, { key: admin() })).json.code).toBe(10004);
  });
});

const HOUR = 3_600_000;
/**
 * The start of the hour `hoursAgo` hours before the one of `now` (UTC), as ISO text. A test reads the clock
 * once and passes it: an hour may begin between two readings.
 */
const hourAgo = (hoursAgo: number, now: number) => new Date(Math.floor(now / HOUR) * HOUR - hoursAgo * HOUR).toISOString();

describe('backfilling a job', () => {
  const backfill = (cronId: string, body: Record<string, unknown>) =>
    api.call('POST', `/v1/cron/${cronId}/backfill`, { key: admin(), body });

  it('refuses a backwards, future or too long range, and unknown fields, with 10001 and starts nothing', async () => {
    // Every minute, paused: a day of it is 1440 due times.
    const job = await createJob({ cron: '* * * * *', paused: true });
    const now = Date.now();
    const cases = [
      [{ since: hourAgo(2, now), until: hourAgo(3, now) }, 'body.until', /after since/],
      [{ since: hourAgo(2, now), until: hourAgo(2, now) }, 'body.until', /after since/],
      [{ since: hourAgo(2, now), until: new Date(now + HOUR).toISOString() }, 'body.until', /future/],
      [{ since: hourAgo(48, now), until: hourAgo(24, now) }, 'body.until', /more than 1000 due times/],
      // 1001 minutes: one past the bound.
      [
        {
          since: new Date(Date.parse(hourAgo(24, now)) - 60_000).toISOString(),
          until: new Date(Date.parse(hourAgo(24, now)) + 1000 * 60_000).toISOString(),
        },
        'body.until',
        /more than 1000/,
      ],
      [{ since: 'yesterday', until: hourAgo(1, now) }, 'body.since', /./],
      [{ since: hourAgo(3, now), until: hourAgo(2, now), overlap: 'sometimes' }, 'body.overlap', /./],
      [{ since: hourAgo(3, now), until: hourAgo(2, now), count: 3 }, 'body.count', /unknown field/],
    ] as const;
    for (const [body, field, message] of cases) {
      const res = await backfill(job.cron_id, body);
      expect({ body, status: res.status, json: res.json }).toMatchObject({ status: 400, json: { code: 10001, data: { field } } });
      expect(res.json.message).toMatch(message);
    }
    expect((await schedule(job.cron_id).describe()).info.recentActions).toEqual([]);
  });

  it('answers a range without due times with none, starting nothing', async () => {
    const job = await createJob({ cron: '0 0 1 1 *', paused: true });
    const since = '2026-03-01T00:00:00.000Z';
    const until = '2026-03-02T00:00:00.000Z';
    const res = await backfill(job.cron_id, { since, until, overlap: 'allow_all' });
    expect(res.json).toMatchObject({
      code: 0,
      data: { cron_id: job.cron_id, since, until, overlap: 'allow_all', runs: 0, first_run_at: null, last_run_at: null },
    });
  });
});

describe('running a job', () => {
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  beforeAll(async () => {
    worker = await startTestWorker(api, { dispatcher: true });
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('backfills past due times: each a normal run, in recent_runs with its due time, paused job or not', async () => {
    // Hourly and paused: only the backfill starts runs during the test.
    const job = await createJob({ name: 'catch up', cron: '0 * * * *', paused: true, question: 'What happened in that hour?' });
    const now = Date.now();
    const due = [hourAgo(5, now), hourAgo(4, now), hourAgo(3, now)];
    const until = hourAgo(2, now);
    // `since` inclusive, `until` exclusive: 5, 4 and 3 hours ago, not 2 hours ago.
    const res = await api.call('POST', `/v1/cron/${job.cron_id}/backfill`, { key: admin(), body: { since: due[0], until } });
    expect(res.json).toMatchObject({
      code: 0,
      data: {
        cron_id: job.cron_id,
        since: due[0],
        until,
        overlap: 'buffer_all',
        runs: 3,
        first_run_at: due[0],
        last_run_at: due[2],
      },
    });

    const runs = await eventually(async () => {
      const recent = (await getJob(job.cron_id)).recent_runs as Array<{ status: string; scheduled_at: string; workflow_id: string }>;
      return recent.length === 3 && recent.every((r) => r.status === 'completed') ? recent : undefined;
    }, 120_000);
    expect(runs.map((r) => r.scheduled_at)).toEqual(due);
    expect(runs.map((r) => r.workflow_id)).toEqual(due.map((at) => `cron-task-${job.cron_id}-${at.replace('.000Z', 'Z')}`));
    // Each run opened its own session and asked the job's question.
    const sessions = (await api.call('GET', `/v1/combo/agents/${agentId}/sessions?page_size=100`, { key: admin() })).json.data.items;
    expect(sessions.filter((s: { user_id: string }) => s.user_id === `cron:${job.cron_id}`)).toHaveLength(3);
    expect((await getJob(job.cron_id)).paused).toBe(true);
  });

  it('starts an agent task on trigger that opens a session for the agent and finishes it', async () => {
    // Yearly and paused: only the trigger below can start a run during the test.
    const job = await createJob({ name: 'run me', cron: '0 0 1 1 *', paused: true, question: 'What is on the agenda today?' });
    const triggered = await api.call('POST', `/v1/cron/${job.cron_id}/trigger`, { key: admin() });
    expect(triggered.json).toMatchObject({ code: 0, data: { cron_id: job.cron_id } });

    const run = await eventually(async () => {
      const [latest] = (await getJob(job.cron_id)).recent_runs;
      return latest?.status === 'completed' ? latest : undefined;
    }, 60_000);
    expect(run.workflow_id.startsWith(`cron-task-${job.cron_id}-`)).toBe(true);

    const handle = worker.client.workflow.getHandle(run.workflow_id, run.run_id);
    const described = await handle.describe();
    expect([
      described.typedSearchAttributes.get(TenantId),
      described.typedSearchAttributes.get(AgentId),
      described.typedSearchAttributes.get(CronId),
    ]).toEqual(['default', agentId, job.cron_id]);
    const outcome = await handle.result();
    // The recent run names its completion run, which is recorded under that trace id.
    expect(run.trace_id).toBe(outcome.trace_id);
    expect((await api.call('GET', `/v1/combo/completions/${run.trace_id}`, { key: admin() })).json.data).toMatchObject({
      trace_id: run.trace_id,
      kind: 'cron',
      status: 'completed',
      question: 'What is on the agenda today?',
    });

    const session = (await api.call('GET', `/v1/combo/sessions/${outcome.session_id}`, { key: admin() })).json.data;
    expect(session).toMatchObject({ agent_id: agentId, user_id: `cron:${job.cron_id}`, metadata: { origin: `cron:${job.cron_id}` } });
    const sessions = (await api.call('GET', `/v1/combo/agents/${agentId}/sessions?page_size=100`, { key: admin() })).json.data.items;
    expect(sessions.map((s: { session_id: string }) => s.session_id)).toContain(outcome.session_id);

    const finished = await eventually(async () => {
      const events = (await api.call('GET', '/v1/events?event=session.finished&page_size=100', { key: admin() })).json.data.items;
      return events.find((e: { data: { session_id: string } }) => e.data.session_id === outcome.session_id);
    });
    expect(finished).toMatchObject({ event: 'session.finished', tenant_id: 'default' });
    const messages = (await api.call('GET', `/v1/combo/sessions/${outcome.session_id}/messages`, { key: admin() })).json.data.items;
    expect(messages.map((m: { role: string; content: string }) => [m.role, m.content])).toContainEqual([
      'user',
      'What is on the agenda today?',
    ]);
  });
});
