import { agentTaskTraceId } from '../../common/agent-task-ids';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/**
 * A cron job's agent task whose model never answers in time: its completion ends at
 * COMPLETION_RUN_TIMEOUT_MS by its own timer, the task's run is recorded as failed, and the job's
 * recent run shows the task failed.
 */
describe('an agent task at its time bound', () => {
  const model = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let cronId: string | undefined;

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = () => ({ body: chatAnswer('too late'), delayMs: 60_000 });
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_TIMEOUT_MS: '30000',
      LLM_MAX_ATTEMPTS: '1',
      COMPLETION_RUN_TIMEOUT_MS: '2000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    // Schedules live on the shared dev server beyond this test's database.
    if (cronId)
      await api.services.temporal.schedule
        .getHandle(`cron-${cronId}`)
        .delete()
        .catch(() => undefined);
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  it('fails the task and records its run as failed with the reason', async () => {
    const agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Slow thinker' } })).json.data.agent_id;
    // Yearly and paused: only the trigger below starts a run.
    const job = (
      await api.call('POST', '/v1/cron', {
        key: api.adminKey,
        body: { name: 'slow', cron: '0 0 1 1 *', paused: true, agent_id: agentId, question: 'Think hard.' },
      })
    ).json.data;
    cronId = job.cron_id;
    await api.call('POST', `/v1/cron/${job.cron_id}/trigger`, { key: api.adminKey });

    const run = await eventually(async () => {
      const [latest] = (await api.call('GET', `/v1/cron/${job.cron_id}`, { key: api.adminKey })).json.data.recent_runs;
      return latest?.status === 'failed' ? latest : undefined;
    }, 60_000);
    const record = (await api.call('GET', `/v1/combo/completions/${agentTaskTraceId(run.workflow_id)}`, { key: api.adminKey })).json.data;
    expect(record).toMatchObject({ status: 'failed', error: { code: 20001, message: expect.stringContaining('time bound (2000 ms)') } });
  });
});
