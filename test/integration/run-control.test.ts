import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, streamedAnswer } from '../support/scripted-chat';
import { type RecordedRequest, ScriptedUpstream, type ScriptedReply } from '../support/scripted-upstream';
import { readSse } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

/** A long answer the scripted model streams slowly: 40 pieces, 150 ms apart (6 s in all). */
const slowAnswer = (): ScriptedReply => ({
  stream: streamedAnswer(Array.from({ length: 40 }, (_, i) => `word${i} `).join(''), { pieces: 40 }),
  chunkDelayMs: 150,
});

describe('run control', () => {
  let api: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let script: ScriptedReply[] = [];
  let agentId: string;

  const scriptModel = (...replies: ScriptedReply[]) => {
    script = replies;
    model.requests.length = 0;
    model.abandoned.length = 0;
  };
  const chatRequests = () => model.requests.filter((r) => r.path.endsWith('/chat/completions'));
  /** Until the scripted model has received a chat request since it was last scripted (a run is under way there). */
  const modelAsked = () => eventually(async () => (chatRequests().length > 0 ? true : undefined));
  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;
  const complete = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api.call('POST', `/v1/combo/agents/${agentId}/completions`, { key: api.adminKey, body, headers });
  const getRun = async (traceId: string) => (await api.call('GET', `/v1/combo/completions/${traceId}`, { key: api.adminKey })).json.data;
  const events = (traceId: string, lastEventId?: string) =>
    readSse(`${api.url}/v1/combo/completions/${traceId}/events`, {
      headers: { authorization: `Bearer ${api.adminKey}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    });
  const ended = (traceId: string) =>
    eventually(async () => {
      const run = await getRun(traceId);
      return ['completed', 'failed', 'canceled'].includes(run.status) ? run : undefined;
    }, 20_000);

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
      TEMPORAL_UI_URL: 'http://127.0.0.1:8233/',
    });
    worker = await startTestWorker(api);
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Runner' } })).json.data.agent_id;
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  it('records every run with its kind, workflow and run ids, lists them with filters, and serves events of a JSON run', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('First answer.') });
    const first = await complete({ session_id: sessionId, question: 'one' });
    expect(first.status).toBe(200);
    const traceId = first.json.data.trace_id;
    const run = await getRun(traceId);
    expect(run).toMatchObject({
      kind: 'chat',
      question: 'one',
      status: 'completed',
      workflow_id: `completion-${traceId}`,
      run_id: expect.any(String),
      stop_reason: 'answered',
      started_at: expect.any(String),
      finished_at: expect.any(String),
    });
    const described = await worker.client.workflow.getHandle(run.workflow_id, run.run_id).describe();
    expect(described.status.name).toBe('COMPLETED');
    // The operator's way in: the Temporal UI's workflow list, filtered by the run's TraceId search attribute.
    const link = new URL(run.temporal_ui_url);
    expect(`${link.origin}${link.pathname}`).toBe(`http://127.0.0.1:8233/namespaces/${api.config.TEMPORAL_NAMESPACE}/workflows`);
    expect(link.searchParams.get('query')).toBe(`TraceId="${traceId}"`);
    expect(described.searchAttributes.TraceId).toEqual([traceId]);

    // Not streamed, yet its events are kept: from the start, and after a Last-Event-ID.
    const all = await events(traceId);
    expect(all.events.map((e) => e.event)).toEqual(['thinking', 'thinking', 'message', 'done']);
    expect(all.events.at(-1)!.data).toMatchObject({ stop_reason: 'answered', cost: { tokens: 20 } });
    const after = await events(traceId, `${traceId}:1`);
    expect(after.events.map((e) => e.id)).toEqual([`${traceId}:2`, `${traceId}:3`]);

    scriptModel({ status: 400, body: { error: { message: 'bad request' } } });
    const failed = await complete({ session_id: sessionId, question: 'two' });
    expect(failed.json.code).toBe(30001);

    const list = async (path: string) => (await api.call('GET', path, { key: api.adminKey })).json.data;
    const ofSession = await list(`/v1/combo/sessions/${sessionId}/completions`);
    expect(ofSession.total).toBe(2);
    expect(ofSession.items.map((r: { status: string }) => r.status)).toEqual(['failed', 'completed']);
    expect(ofSession.items[1].temporal_ui_url).toBe(run.temporal_ui_url);
    expect((await list(`/v1/combo/sessions/${sessionId}/completions?status=completed`)).items).toHaveLength(1);
    expect((await list(`/v1/combo/agents/${agentId}/completions?kind=chat&page_size=1`)).items).toHaveLength(1);
    expect((await list(`/v1/combo/completions?kind=cron`)).total).toBe(0);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await list(`/v1/combo/completions?since=${encodeURIComponent(future)}`)).total).toBe(0);
    expect((await list(`/v1/combo/completions?until=${encodeURIComponent(future)}`)).total).toBeGreaterThanOrEqual(2);
    const bad = await api.call('GET', '/v1/combo/completions?status=sleeping', { key: api.adminKey });
    expect(bad.json.code).toBe(10001);

    // A failed run announces itself to subscribers.
    const logged = await eventually(async () => {
      const res = await api.call('GET', `/v1/events?event=run.failed`, { key: api.adminKey });
      return res.json.data.items.find((e: { data: { session_id: string } }) => e.data.session_id === sessionId);
    });
    expect(logged.data).toMatchObject({ trace_id: failed.json.trace_id ?? expect.any(String), code: 30001, cost: expect.any(Object) });
  });

  it('answers a background run at once and lets the client follow it to its end', async () => {
    const sessionId = await newSession();
    scriptModel({ stream: streamedAnswer('Done in the background.', { pieces: 4 }), chunkDelayMs: 300 });
    const accepted = await complete({ session_id: sessionId, question: 'work on it', background: true });
    expect(accepted.status).toBe(202);
    expect(accepted.json.data).toMatchObject({ status: 'running', session_id: sessionId });
    const traceId = accepted.json.data.trace_id;
    const followed = await events(traceId);
    expect(followed.events.filter((e) => e.event === 'message').length).toBeGreaterThan(1);
    expect(followed.events.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'answered' } });
    expect(await getRun(traceId)).toMatchObject({ status: 'completed', answer: 'Done in the background.' });

    const both = await complete({ session_id: sessionId, question: 'x', background: true, stream: true });
    expect(both.json).toMatchObject({ code: 10001, data: { field: 'body.background' } });
  });

  it('cancels a streaming run: the model request is aborted, the partial answer is recorded and done says canceled', async () => {
    const sessionId = await newSession();
    scriptModel(slowAnswer());
    const streaming = readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'tell me a long story', stream: true }),
    });
    const traceId = await eventually(async () => {
      const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key: api.adminKey })).json.data.items;
      return runs[0]?.trace_id as string | undefined;
    });
    // Some of the answer has arrived first: the run's events are read one at a time until a message is among them.
    await modelAsked();
    for (let lastId: string | undefined; ;) {
      const [next] = (
        await readSse(
          `${api.url}/v1/combo/completions/${traceId}/events`,
          { headers: { authorization: `Bearer ${api.adminKey}`, ...(lastId ? { 'last-event-id': lastId } : {}) } },
          { stopAfter: 1 },
        )
      ).events;
      if (next?.event === 'message') break;
      lastId = next?.id;
    }
    const cancelAt = Date.now();
    const cancel = await api.call('POST', `/v1/combo/completions/${traceId}/cancel`, { key: api.adminKey });
    const stream = await streaming;
    const cancelToDoneMs = Date.now() - cancelAt;
    expect(cancel.status).toBe(200);
    expect(cancel.json.data).toMatchObject({ status: 'canceled', stop_reason: 'canceled' });
    const done = stream.events.at(-1)!;
    expect(done).toMatchObject({ event: 'done', data: { stop_reason: 'canceled', cost: expect.any(Object) } });
    const partial = stream.events.at(-2)!;
    expect(partial.event).toBe('message');
    expect(partial.data.answer).toMatch(/^word0 /);
    expect(partial.data.answer).not.toContain('word39');
    expect(cancel.json.data.answer).toBe(partial.data.answer);
    console.log(`cancel request to done: ${cancelToDoneMs} ms`);

    // The upstream connection was closed, and no further model request came.
    expect(model.abandoned).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(chatRequests()).toHaveLength(1);

    const messages = (await api.call('GET', `/v1/combo/sessions/${sessionId}/messages`, { key: api.adminKey })).json.data.items;
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: partial.data.answer, metadata: { canceled: 'true' } });

    const again = await api.call('POST', `/v1/combo/completions/${traceId}/cancel`, { key: api.adminKey });
    expect(again.json.code).toBe(10005);
    const logged = await eventually(async () => {
      const res = await api.call('GET', `/v1/events?event=run.canceled`, { key: api.adminKey });
      return res.json.data.items.find((e: { data: { trace_id: string } }) => e.data.trace_id === traceId);
    });
    expect(logged.data).toMatchObject({ session_id: sessionId, cost: expect.any(Object) });
  });

  it('gives a waiting JSON call the cancelled reply with HTTP 200', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('too late'), delayMs: 8_000 });
    const waiting = complete({ session_id: sessionId, question: 'slow one' });
    const traceId = await eventually(async () => {
      const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key: api.adminKey })).json.data.items;
      return runs[0]?.status === 'running' ? (runs[0].trace_id as string) : undefined;
    });
    // Cancelled while its model call is in flight.
    await modelAsked();
    await api.call('POST', `/v1/combo/completions/${traceId}/cancel`, { key: api.adminKey });
    const reply = await waiting;
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ code: 0, data: { trace_id: traceId, stop_reason: 'canceled' } });
  });

  it('applies the session multitask strategies: reject, enqueue in order, interrupt and rollback', async () => {
    const sessionId = await newSession();
    scriptModel(slowAnswer(), { body: chatAnswer('Second.') });
    const first = await complete({ session_id: sessionId, question: 'first', background: true });
    const firstTrace = first.json.data.trace_id;

    const refused = await complete({ session_id: sessionId, question: 'rejected' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 10005, data: { running_trace_id: firstTrace } });

    const queued = await complete({ session_id: sessionId, question: 'second', multitask_strategy: 'enqueue', background: true });
    expect(queued.json.data.status).toBe('queued');
    const secondTrace = queued.json.data.trace_id;
    expect(await getRun(secondTrace)).toMatchObject({ status: 'queued', run_id: null, started_at: null });
    const [firstRun, secondRun] = [await ended(firstTrace), await ended(secondTrace)];
    expect(firstRun.status).toBe('completed');
    expect(secondRun).toMatchObject({ status: 'completed', answer: 'Second.' });
    expect(new Date(secondRun.started_at).getTime()).toBeGreaterThanOrEqual(new Date(firstRun.finished_at).getTime());
    // The queued run read the history the first left.
    const secondRequest = chatRequests()[1]!.body as { messages: Array<{ role: string; content: string }> };
    expect(secondRequest.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['first', 'second']));

    // interrupt: the running run is cancelled (its partial turn kept), the new one runs.
    scriptModel(slowAnswer(), { body: chatAnswer('Interrupting answer.') });
    const slow = (await complete({ session_id: sessionId, question: 'slow again', background: true })).json.data.trace_id;
    await modelAsked();
    const interrupting = await complete({ session_id: sessionId, question: 'stop that', multitask_strategy: 'interrupt' });
    expect(interrupting.json.data).toMatchObject({ answer: 'Interrupting answer.' });
    expect(await getRun(slow)).toMatchObject({ status: 'canceled' });
    let contents = (
      await api.call('GET', `/v1/combo/sessions/${sessionId}/messages?page_size=100`, { key: api.adminKey })
    ).json.data.items.map((m: { content: string }) => m.content);
    expect(contents).toContain('slow again');

    // rollback: the cancelled run's turn leaves the session.
    scriptModel(slowAnswer(), { body: chatAnswer('After rollback.') });
    const rolled = (await complete({ session_id: sessionId, question: 'to be rolled back', background: true })).json.data.trace_id;
    await modelAsked();
    const rollback = await complete({ session_id: sessionId, question: 'instead', multitask_strategy: 'rollback' });
    expect(rollback.json.data).toMatchObject({ answer: 'After rollback.' });
    expect(await getRun(rolled)).toMatchObject({ status: 'canceled' });
    contents = (await api.call('GET', `/v1/combo/sessions/${sessionId}/messages?page_size=100`, { key: api.adminKey })).json.data.items.map(
      (m: { content: string }) => m.content,
    );
    expect(contents).not.toContain('to be rolled back');
    const lastRequest = chatRequests().at(-1)!.body as { messages: Array<{ content: string }> };
    expect(lastRequest.messages.map((m) => m.content)).not.toContain('to be rolled back');

    // An agent may make enqueue its default.
    await api.call('PUT', `/v1/combo/agents/${agentId}`, { key: api.adminKey, body: { multitask_strategy: 'enqueue' } });
    scriptModel(slowAnswer(), { body: chatAnswer('Queued by default.') });
    await complete({ session_id: sessionId, question: 'a', background: true });
    const byDefault = await complete({ session_id: sessionId, question: 'b', background: true });
    expect(byDefault.json.data.status).toBe('queued');
    await api.call('PUT', `/v1/combo/agents/${agentId}`, { key: api.adminKey, body: { multitask_strategy: 'reject' } });
    // A queued run is cancelled without ever starting.
    const cancelled = await api.call('POST', `/v1/combo/completions/${byDefault.json.data.trace_id}/cancel`, { key: api.adminKey });
    expect(cancelled.json.data).toMatchObject({ status: 'canceled', run_id: null });
  });

  it('opens a streamed run behind another at once (accepted, then queued), while reject still answers 409 before any stream', async () => {
    const sessionId = await newSession();
    scriptModel(slowAnswer(), { stream: streamedAnswer('Waited my turn.', { pieces: 2 }) });
    const firstTrace = (await complete({ session_id: sessionId, question: 'first', background: true })).json.data.trace_id;
    await modelAsked();
    const stream = (body: Record<string, unknown>) =>
      readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: sessionId, ...body, stream: true }),
      });

    const refused = await stream({ question: 'rejected' });
    expect(refused.status).toBe(409);
    expect(refused.contentType).toMatch(/^application\/json/);
    expect(refused.events[0]!.data).toMatchObject({ code: 10005, data: { running_trace_id: firstTrace } });

    const queued = await stream({ question: 'second', multitask_strategy: 'enqueue' });
    const traceId = queued.events[0]!.data.trace_id as string;
    expect(queued.events.map((e) => e.id)).toEqual(queued.events.map((_, i) => `${traceId}:${i}`));
    expect(queued.events.slice(0, 2).map((e) => [e.event, e.data.phase])).toEqual([
      ['thinking', 'accepted'],
      ['thinking', 'queued'],
    ]);
    expect(queued.events.at(-2)).toMatchObject({ event: 'message', data: { answer: 'Waited my turn.' } });
    expect(queued.events.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'answered' } });
    const [first, second] = [await ended(firstTrace), await getRun(traceId)];
    expect(first.status).toBe('completed');
    expect(new Date(second.started_at).getTime()).toBeGreaterThanOrEqual(new Date(first.finished_at).getTime());
  });

  it('starts one run per Idempotency-Key and attaches a repeat to it', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('Once.'), delayMs: 500 });
    const key = `key-${Date.now()}`;
    const [a, b] = await Promise.all([
      complete({ session_id: sessionId, question: 'only once' }, { 'idempotency-key': key }),
      new Promise((resolve) => setTimeout(resolve, 200)).then(() =>
        complete({ session_id: sessionId, question: 'only once' }, { 'idempotency-key': key }),
      ),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses[0]).toBe(200);
    const answered = [a, b].filter((r) => r.status === 200);
    for (const r of answered) expect(r.json.data.answer).toBe('Once.');
    const repeat = await complete({ session_id: sessionId, question: 'only once' }, { 'idempotency-key': key });
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.json.data.trace_id).toBe(answered[0]!.json.data.trace_id);
    expect(chatRequests()).toHaveLength(1);
    const runs = (await api.call('GET', `/v1/combo/sessions/${sessionId}/completions`, { key: api.adminKey })).json.data;
    expect(runs.total).toBe(1);
  });

  it('refuses an Idempotency-Key sent with another request (10005), and attaches a repeat streamed or in the background', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('First.') });
    const key = `key-other-${Date.now()}`;
    const asked = { session_id: sessionId, question: 'the first question' };
    const first = await complete(asked, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    for (const other of [
      { ...asked, question: 'another question' },
      { ...asked, route: '@kbqa@extractive@default@' },
      { ...asked, multitask_strategy: 'enqueue' },
    ]) {
      const refused = await complete(other, { 'idempotency-key': key });
      expect({ status: refused.status, code: refused.json.code, field: refused.json.data?.field }).toEqual({
        status: 409,
        code: 10005,
        field: 'header.Idempotency-Key',
      });
    }
    // `stream` and `background` are how the answer is delivered, not what is asked.
    const background = await complete({ ...asked, background: true }, { 'idempotency-key': key });
    expect({ status: background.status, replayed: background.headers.get('idempotent-replayed') }).toEqual({
      status: 202,
      replayed: 'true',
    });
    expect(background.json.data.trace_id).toBe(first.json.data.trace_id);
    const streamed = await readSse(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ ...asked, stream: true }),
    });
    expect(streamed.events.at(-1)).toMatchObject({ event: 'done', data: { trace_id: first.json.data.trace_id } });
    expect(chatRequests()).toHaveLength(1);
  });
});
