import { randomToken } from '../../common/ids';
import { signPayload } from '../../common/signature';
import type { AgentTaskOutcome } from '../../workflows/agent-task';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/**
 * Trigger and cron runs while they run and once cancelled, through HTTP on the real stack: a
 * running run shows its completion's Temporal run id, and a run cancelled with
 * `POST …/cancel` ends `canceled` without failing its agent task.
 */
describe('agent task runs', () => {
  const model = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let agentId: string;
  /** Schedules live on the shared dev server beyond this test's database: every one made here is removed at the end. */
  const cronIds: string[] = [];

  beforeAll(async () => {
    const modelUrl = await model.start();
    // Agent tasks do not stream: the model answers, after a long while, all at once.
    model.reply = () => ({ body: chatAnswer('Too late.'), delayMs: 30_000 });
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '40000',
      LLM_MAX_ATTEMPTS: '1',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Slow worker' } })).json.data.agent_id;
  });
  afterAll(async () => {
    for (const cronId of cronIds)
      await api.services.temporal.schedule
        .getHandle(`cron-${cronId}`)
        .delete()
        .catch(() => undefined);
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, body });
  /** The agent's latest run of a kind, once it is running with its run id. */
  const runningRun = (kind: 'trigger' | 'cron') =>
    eventually(async () => {
      const [latest] = (await call('GET', `/v1/combo/agents/${agentId}/completions?kind=${kind}&page_size=1`)).json.data.items;
      if (latest?.status !== 'running') return undefined;
      // A running run's run id comes from Temporal, on the run itself (lists show what is recorded).
      const run = (await call('GET', `/v1/combo/completions/${latest.trace_id}`)).json.data;
      return run.run_id ? run : undefined;
    }, 30_000);
  const eventsOf = async (name: string, traceId: string) => {
    const items = (await call('GET', `/v1/events?event=${name}&page_size=100`)).json.data.items as Array<{ data: { trace_id: string } }>;
    return items.filter((e) => e.data.trace_id === traceId);
  };

  /** A running run: its run id is its completion workflow's, and the run answers a cancel as `canceled`. */
  async function cancelRunning(kind: 'trigger' | 'cron') {
    const run = await runningRun(kind);
    expect(run).toMatchObject({ kind, status: 'running', workflow_id: `completion-${run.trace_id}`, finished_at: null });
    const completion = await api.services.temporal.workflow.getHandle(run.workflow_id).describe();
    expect(completion).toMatchObject({ runId: run.run_id, status: { name: 'RUNNING' } });
    // An API completion on the task's session cannot queue behind or cancel the task's run: refused, naming it.
    const intruder = await call('POST', `/v1/combo/agents/${agentId}/completions`, {
      session_id: run.session_id,
      question: 'me too',
      multitask_strategy: 'enqueue',
    });
    expect(intruder.json).toMatchObject({ code: 10005, data: { running_trace_id: run.trace_id } });
    // Streamed too: refused before any stream opens.
    const streamed = await call('POST', `/v1/combo/agents/${agentId}/completions`, {
      session_id: run.session_id,
      question: 'me too, streamed',
      multitask_strategy: 'enqueue',
      stream: true,
    });
    expect(streamed.status).toBe(409);
    expect(streamed.json).toMatchObject({ code: 10005, data: { running_trace_id: run.trace_id } });
    expect((await call('GET', `/v1/combo/completions/${run.trace_id}`)).json.data.run_id).toBe(run.run_id);

    const cancel = await call('POST', `/v1/combo/completions/${run.trace_id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.json.data).toMatchObject({ status: 'canceled', stop_reason: 'canceled', run_id: run.run_id });
    return { traceId: run.trace_id as string, runId: run.run_id as string };
  }

  /** The task completed (its run's cancel is no failure of it), its run stays `canceled`, and only `run.canceled` was sent. */
  async function expectCanceledTask(taskWorkflowId: string, traceId: string, runId: string) {
    const task = api.services.temporal.workflow.getHandle(taskWorkflowId);
    const outcome = (await task.result()) as AgentTaskOutcome;
    expect(outcome).toMatchObject({ trace_id: traceId, stop_reason: 'canceled', answer: '', cost: { tokens: 0 } });
    expect(await task.describe()).toMatchObject({
      status: { name: 'COMPLETED' },
      memo: expect.objectContaining({ run_status: 'canceled' }),
    });
    expect((await call('GET', `/v1/combo/completions/${traceId}`)).json.data).toMatchObject({
      status: 'canceled',
      stop_reason: 'canceled',
      run_id: runId,
      error: null,
    });
    await eventually(async () => ((await eventsOf('run.canceled', traceId)).length === 1 ? true : undefined));
    expect(await eventsOf('run.failed', traceId)).toEqual([]);
  }

  it('a cron run shows its run id while it runs; cancelled, it is canceled in its record and in recent_runs', async () => {
    // Yearly and paused: only the trigger below starts a run.
    const job = (await call('POST', '/v1/cron', { name: 'slow', cron: '0 0 1 1 *', paused: true, agent_id: agentId, question: 'Think.' }))
      .json.data;
    cronIds.push(job.cron_id);
    await call('POST', `/v1/cron/${job.cron_id}/trigger`);

    const { traceId, runId } = await cancelRunning('cron');
    const recent = await eventually(async () => {
      const [latest] = (await call('GET', `/v1/cron/${job.cron_id}`)).json.data.recent_runs;
      return latest && latest.status !== 'running' ? latest : undefined;
    }, 30_000);
    expect(recent.status).toBe('canceled');
    await expectCanceledTask(recent.workflow_id, traceId, runId);
  });

  it('a trigger run shows its run id while it runs; cancelled, it is canceled and its task does not fail', async () => {
    const integration = (await call('POST', '/v1/integrations', { channel: 'generic' })).json.data;
    const trigger = (
      await call('POST', '/v1/event-trigger', {
        name: 'on build',
        trigger: { source: 'generic', match: { event: 'build.finished' }, action: { agent_id: agentId, session_template: 'default' } },
      })
    ).json.data;
    const body = JSON.stringify({ event: 'build.finished', project: 'payments/api', actor: 'ci', url: 'https://ci.example.com/builds/1' });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const inbound = await api.call('POST', `/v1/webhook/generic/${trigger.trigger_id}?integration_id=${integration.integration_id}`, {
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        'x-combo-timestamp': timestamp,
        'x-combo-event-id': `build-${randomToken(8)}`,
        'x-combo-signature': signPayload(integration.secret, timestamp, body),
      },
    });
    const [task] = inbound.json.data.tasks;
    expect(task).toMatchObject({ trigger_id: trigger.trigger_id, started: true });

    const { traceId, runId } = await cancelRunning('trigger');
    await expectCanceledTask(task.workflow_id, traceId, runId);
  });
});
