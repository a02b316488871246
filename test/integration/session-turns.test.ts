import { WorkflowNotFoundError } from '@temporalio/client';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, streamedAnswer } from '../support/scripted-chat';
import { type RecordedRequest, ScriptedUpstream, type ScriptedReply } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

/** A long answer the scripted model streams slowly: 40 pieces, 150 ms apart (6 s in all). */
const slowAnswer = (): ScriptedReply => ({
  stream: streamedAnswer(Array.from({ length: 40 }, (_, i) => `word${i} `).join(''), { pieces: 40 }),
  chunkDelayMs: 150,
});

/**
 * An idle session's run starts without the session's workflow (it takes the session's turn in
 * collection `session_turns`); a session's workflow shares the turn with such runs. The strategies
 * against a run that holds the turn are in run-control.test.ts (its first runs start so).
 */
describe('session turns', () => {
  let api: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let script: ScriptedReply[] = [];
  let agentId: string;

  const scriptModel = (...replies: ScriptedReply[]) => {
    script = replies;
    model.requests.length = 0;
  };
  const modelAsked = () => eventually(async () => (model.requests.some((r) => r.path.endsWith('/chat/completions')) ? true : undefined));
  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;
  const complete = (body: Record<string, unknown>) =>
    api.call('POST', `/v1/combo/agents/${agentId}/completions`, { key: api.adminKey, body });
  const getRun = async (traceId: string) => (await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data;
  const turns = () => api.services.mongo.db.collection<{ _id: string; tenant_id: string; holder: string; since: Date }>('session_turns');
  const turnOf = (sessionId: string) => turns().findOne({ _id: sessionId });
  const sessionWorkflowStatus = (sessionId: string) =>
    worker.client.workflow
      .getHandle(`session-runs-${sessionId}`)
      .describe()
      .then(
        (d) => d.status.name,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return 'none';
          throw err;
        },
      );

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (_req: RecordedRequest) =>
      script.length > 1 ? script.shift()! : (script[0] ?? { status: 500, body: { error: 'nothing scripted' } });
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '20000',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api);
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Turns' } })).json.data.agent_id;
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  it("runs an idle session's completions without the session's workflow, and gives the turn back at each run's end", async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('Straight away.') });
    const first = await complete({ session_id: sessionId, question: 'one' });
    expect(first.json).toMatchObject({ code: 0, data: { answer: 'Straight away.' } });
    const second = await complete({ session_id: sessionId, question: 'two' });
    expect(second.json).toMatchObject({ code: 0, data: { answer: 'Straight away.' } });

    expect(await sessionWorkflowStatus(sessionId)).toBe('none');
    expect(await turnOf(sessionId)).toBeNull();
    // Each run is its own workflow all the same, found by its search attributes, with no parent.
    const run = await getRun(second.json.data.trace_id);
    const described = await worker.client.workflow.getHandle(run.workflow_id).describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.parentExecution).toBeUndefined();
    expect(described.searchAttributes).toMatchObject({ SessionId: [sessionId], TraceId: [run.trace_id], AgentId: [agentId] });
    // Its time bound is a timer from its first task, with no patch marker or TemporalChangeVersion upsert to ask for it.
    const events = (await worker.client.workflow.getHandle(run.workflow_id).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    expect(events.filter((e) => e.markerRecordedEventAttributes || e.upsertWorkflowSearchAttributesEventAttributes)).toEqual([]);
    // The second run read the first one's turn.
    const lastRequest = model.requests.at(-1)!.body as { messages: Array<{ content: string }> };
    expect(lastRequest.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['one', 'Straight away.', 'two']));
  });

  it('gives back the turn a refused streamed request took beside its checks', async () => {
    const sessionId = await newSession();
    const unknownContext = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key: api.adminKey,
      body: { session_id: sessionId, question: 'refused', stream: true, context_ids: ['doc_NoSuchDocument0000'] },
    });
    expect(unknownContext.status).toBe(404);
    expect(unknownContext.json).toMatchObject({ code: 10004 });
    expect(await turnOf(sessionId)).toBeNull();
    // And the session runs alone all the same.
    scriptModel({ body: chatAnswer('Not refused.') });
    expect((await complete({ session_id: sessionId, question: 'fine' })).json.data.answer).toBe('Not refused.');
  });

  it("queues behind a run that holds the turn through the session's workflow, which gives the turn back once idle", async () => {
    const sessionId = await newSession();
    scriptModel(slowAnswer(), { body: chatAnswer('After you.') });
    const firstTrace = (await complete({ session_id: sessionId, question: 'first', background: true })).json.data.trace_id;
    await modelAsked();
    expect(await turnOf(sessionId)).toMatchObject({ holder: firstTrace });

    const queued = await complete({ session_id: sessionId, question: 'second', multitask_strategy: 'enqueue', background: true });
    expect(queued.json.data.status).toBe('queued');
    const second = await eventually(async () => {
      const run = await getRun(queued.json.data.trace_id);
      return run.status === 'completed' ? run : undefined;
    }, 30_000);
    const first = await getRun(firstTrace);
    expect(first.status).toBe('completed');
    expect(new Date(second.started_at).getTime()).toBeGreaterThanOrEqual(new Date(first.finished_at).getTime());

    // Idle again: the turn is free, and the next request runs alone.
    await eventually(async () => ((await turnOf(sessionId)) === null ? true : undefined), 15_000);
    scriptModel({ body: chatAnswer('Alone again.') });
    const third = await complete({ session_id: sessionId, question: 'third' });
    expect(third.json.data.answer).toBe('Alone again.');
    const thirdRun = await worker.client.workflow.getHandle(`completion-${third.json.data.trace_id}`).describe();
    expect(thirdRun.parentExecution).toBeUndefined();
  });

  it('keeps serving a session whose queued run was cancelled while it waited for the run holding the turn', async () => {
    const sessionId = await newSession();
    scriptModel(slowAnswer());
    const holder = (await complete({ session_id: sessionId, question: 'holder', background: true })).json.data.trace_id;
    await modelAsked();
    const queued = await complete({ session_id: sessionId, question: 'queued', multitask_strategy: 'enqueue', background: true });
    expect(queued.json.data.status).toBe('queued');
    const sessionRun = (await worker.client.workflow.getHandle(`session-runs-${sessionId}`).describe()).runId;
    const cancelled = await api.call('POST', `/v1/combo/completions/${queued.json.data.trace_id}/cancel`, { key: api.adminKey });
    expect(cancelled.json.data).toMatchObject({ status: 'canceled', run_id: null });
    await eventually(async () => ((await getRun(holder)).status === 'completed' ? true : undefined), 30_000);
    // The session's workflow, its queue emptied during the wait, takes the turn and gives it back
    // once idle; one that went on to start nothing would fail its workflow task (holding the turn)
    // until the next request came.
    const sessionHandle = worker.client.workflow.getHandle(`session-runs-${sessionId}`, sessionRun);
    const history = await eventually(async () => {
      const events = (await sessionHandle.fetchHistory()).events ?? [];
      const gaveBack = events.some((e) =>
        Buffer.from(e.markerRecordedEventAttributes?.details?.['data']?.payloads?.[0]?.data ?? [])
          .toString()
          .includes('releaseSessionTurn'),
      );
      return gaveBack || events.some((e) => e.workflowTaskFailedEventAttributes) ? events : undefined;
    }, 30_000);
    expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
    expect(await turnOf(sessionId)).toBeNull();
    // And it takes the next request as ever.
    scriptModel({ body: chatAnswer('Still here.') });
    const next = await complete({ session_id: sessionId, question: 'next', multitask_strategy: 'enqueue' });
    expect(next.json).toMatchObject({ code: 0, data: { answer: 'Still here.' } });
    // The same execution, not a new one after the first failed.
    const after = await worker.client.workflow.getHandle(`session-runs-${sessionId}`, sessionRun).describe();
    expect(after.status.name).toBe('RUNNING');
  });

  it('takes the turn from a run that can no longer give it back (terminated), and from a request that never started its run', async () => {
    const sessionId = await newSession();
    scriptModel(slowAnswer());
    const stuck = (await complete({ session_id: sessionId, question: 'stuck', background: true })).json.data.trace_id;
    await modelAsked();
    await worker.client.workflow.getHandle(`completion-${stuck}`).terminate('operator ended it');
    // The agent's strategy is reject: a live run would refuse this request with 10005.
    scriptModel({ body: chatAnswer('Free again.') });
    const after = await complete({ session_id: sessionId, question: 'after the terminated one' });
    expect(after.json).toMatchObject({ code: 0, data: { answer: 'Free again.' } });

    // A turn whose request died before it started its run: no workflow, taken long ago.
    const orphaned = await newSession();
    await turns().insertOne({ _id: orphaned, tenant_id: 'any', holder: 'trc_never_started', since: new Date(Date.now() - 3_600_000) });
    const served = await complete({ session_id: orphaned, question: 'hello' });
    expect(served.json).toMatchObject({ code: 0, data: { answer: 'Free again.' } });
    await eventually(async () => ((await turnOf(orphaned)) === null ? true : undefined), 90_000);
  });
});
