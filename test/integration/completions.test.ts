import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer, chatToolCall, streamedAnswer } from '../support/scripted-chat';
import { type RecordedRequest, ScriptedUpstream, type ScriptedReply } from '../support/scripted-upstream';
import { readSse, type SseEvent } from '../support/sse';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

/** A tool server for skills: answers per path, slowly when asked. */
async function startToolServer() {
  const calls: Array<{ method: string; url: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({ method: req.method!, url: req.url!, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url!.startsWith('/weather')) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ city: new URL(req.url!, 'http://x').searchParams.get('city'), forecast: 'sunny, 24°C' }));
      } else if (req.url!.startsWith('/broken')) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unknown ticket' }));
      } else {
        setTimeout(() => res.writeHead(200).end('{}'), 5_000).unref();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('completions', () => {
  let api: TestApi;
  let worker: Worker;
  const model = new ScriptedUpstream();
  let tools: Awaited<ReturnType<typeof startToolServer>>;
  let agentId: string;
  let script: ScriptedReply[] = [];

  /** The model answers with the scripted replies in order (the last one repeats). */
  const scriptModel = (...replies: ScriptedReply[]) => {
    script = replies;
    model.requests.length = 0;
  };
  const chatRequests = () => model.requests.filter((r) => r.path.endsWith('/chat/completions'));

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (_req: RecordedRequest) =>
      script.length > 1 ? script.shift()! : (script[0] ?? { status: 500, body: { error: 'nothing scripted' } });
    tools = await startToolServer();
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '2000',
      LLM_MAX_ATTEMPTS: '3',
      COMPLETION_MAX_STEPS: '3',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      STREAM_KEEPALIVE_MS: '200',
      COST_THRESHOLD_TOKENS: '1000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
    const agent = await api.call('POST', '/v1/combo/agents', {
      key: api.adminKey,
      body: {
        name: 'Helper',
        instructions: 'You are a concise helper.',
        model: { temperature: 0.2, max_tokens: 300 },
        tools: ['current_time'],
      },
    });
    agentId = agent.json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
    tools?.close();
  });

  const newSession = async () =>
    (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;
  const complete = (body: Record<string, unknown>, agent = agentId) =>
    api.call('POST', `/v1/combo/agents/${agent}/completions`, { key: api.adminKey, body });
  const stream = (body: Record<string, unknown>, options: { stopAfter?: number; headers?: Record<string, string>; base?: string } = {}) =>
    readSse(
      `${options.base ?? api.url}/v1/combo/agents/${agentId}/completions`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json', ...options.headers },
        body: JSON.stringify({ ...body, stream: true }),
      },
      { stopAfter: options.stopAfter },
    );
  const eventsOf = (name: string, sessionId: string) =>
    api.services.mongo.db.collection('events').find({ event: name, 'data.session_id': sessionId }).toArray();
  const names = (events: SseEvent[]) => events.map((e) => e.event);

  it('answers in JSON with the model, records both messages and feeds earlier turns to the next run', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('Paris is the capital of France.', { prompt_tokens: 30, completion_tokens: 8 }) });
    const first = await complete({ session_id: sessionId, question: 'What is the capital of France?' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      code: 0,
      message: 'ok',
      data: {
        session_id: sessionId,
        answer: 'Paris is the capital of France.',
        reference: [],
        route: '@chat@llm@default@',
        offline: false,
        stop_reason: 'answered',
        // The default provider of this installation has no price: no money.
        cost: { tokens: 38, input_tokens: 30, output_tokens: 8, amount: null },
      },
    });
    expect(first.json.data.trace_id).toMatch(/^trc_/);
    expect(first.json.data.cost.duration_ms).toBeGreaterThan(0);
    const sent = chatRequests()[0]!.body as {
      model: string;
      temperature: number;
      max_tokens: number;
      messages: Array<{ role: string; content: string }>;
      tools: unknown[];
    };
    expect(sent).toMatchObject({ model: 'scripted-model', temperature: 0.2, max_tokens: 300 });
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are a concise helper.' });
    expect(sent.tools.map((t: any) => t.function.name)).toEqual(['current_time']);

    scriptModel({ body: chatAnswer('About 2.1 million people.') });
    const second = await complete({ session_id: sessionId, question: 'How many people live there?' });
    expect(second.json.data.answer).toBe('About 2.1 million people.');
    const history = (chatRequests()[0]!.body as { messages: Array<{ role: string; content: string }> }).messages.slice(1);
    expect(history).toEqual([
      { role: 'user', content: 'What is the capital of France?' },
      { role: 'assistant', content: 'Paris is the capital of France.' },
      { role: 'user', content: 'How many people live there?' },
    ]);

    const messages = await api.call('GET', `/v1/combo/sessions/${sessionId}/messages`, { key: api.adminKey });
    expect(messages.json.data.items.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'What is the capital of France?'],
      ['assistant', 'Paris is the capital of France.'],
      ['user', 'How many people live there?'],
      ['assistant', 'About 2.1 million people.'],
    ]);
    const run = await api.call('GET', `/v1/combo/completions/${first.json.data.trace_id}`, { key: api.adminKey });
    expect(run.json.data).toMatchObject({
      status: 'completed',
      answer: 'Paris is the capital of France.',
      model: 'scripted-model',
      cost: { tokens: 38, input_tokens: 30, output_tokens: 8, amount: null },
      // No TEMPORAL_UI_URL in this installation: no link.
      temporal_ui_url: null,
    });
    // The answer in the session carries what the run spent, so a retried recording repeats it exactly.
    expect(await api.services.sessions.recordedAnswer('default', sessionId, first.json.data.trace_id)).toEqual({
      content: 'Paris is the capital of France.',
      answeredBy: { model: 'scripted-model', tokens: 38, inputTokens: 30, outputTokens: 8, amount: null },
    });
    expect(await api.services.sessions.recordedAnswer('default', sessionId, 'trc_neverRan')).toBeNull();

    const finished = await eventsOf('session.finished', sessionId);
    expect(finished).toHaveLength(2);
    expect(finished[0]!.data).toMatchObject({
      session_id: sessionId,
      cost: { tokens: expect.any(Number), duration_ms: expect.any(Number) },
      artifacts: [],
    });
    const steps = await eventsOf('agent.step', sessionId);
    expect(steps.map((s) => s.data)).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'answer', confidence: 1, session_id: sessionId })]),
    );
  });

  it('makes the run findable in Temporal by trace, tenant, agent and session, each model call an activity', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('ok') });
    const reply = await complete({ session_id: sessionId, question: 'ping' });
    const traceId = reply.json.data.trace_id;
    const query = `TraceId = "${traceId}" AND TenantId = "default" AND AgentId = "${agentId}" AND SessionId = "${sessionId}"`;
    const found = await eventually(async () => {
      const runs = [];
      for await (const wf of worker.client.workflow.list({ query })) runs.push(wf);
      return runs.length > 0 ? runs : undefined;
    }, 15_000);
    expect(found[0]).toMatchObject({ type: 'completionWorkflow', workflowId: `completion-${traceId}` });
    const history = await worker.client.workflow.getHandle(found[0]!.workflowId, found[0]!.runId).fetchHistory();
    const scheduled = history
      .events!.filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => e.activityTaskScheduledEventAttributes!);
    expect(scheduled.map((a) => a.activityType!.name)).toEqual(['callModel']);
    expect(scheduled[0]!.retryPolicy).toMatchObject({ maximumAttempts: 3, nonRetryableErrorTypes: ['ModelRequestRejected'] });
    // The answering call recorded the run: no local activity (marker) after it.
    expect(history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(0);
  });

  it('refuses what it cannot run: unknown, foreign or archived sessions, bad routes, unknown ids', async () => {
    scriptModel({ body: chatAnswer('never asked') });
    const sessionId = await newSession();
    const other = await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Other' } });
    const otherSession = (await api.call('POST', `/v1/combo/agents/${other.json.data.agent_id}/sessions`, { key: api.adminKey, body: {} }))
      .json.data.session_id;

    expect((await complete({ session_id: 'ses_doesnotexist', question: 'hi' })).json).toMatchObject({ code: 10004 });
    const malformed = await complete({ session_id: 'no-such-session', question: 'hi' });
    expect(malformed.status).toBe(404);
    expect(malformed.json).toMatchObject({ code: 10004, data: { resource: 'session', id: 'no-such-session' } });
    expect((await complete({ session_id: sessionId, question: 'hi', attachments: ['not-a-file'] })).json).toMatchObject({
      code: 10004,
      data: { id: 'not-a-file' },
    });
    expect((await complete({ session_id: otherSession, question: 'hi' })).json).toMatchObject({
      code: 10004,
      message: expect.stringContaining('does not belong'),
    });
    expect((await complete({ session_id: sessionId, question: 'hi' }, 'agt_unknown')).json.code).toBe(10004);
    expect((await complete({ question: 'hi' })).json).toMatchObject({ code: 10001, data: { field: 'body.session_id' } });
    expect((await complete({ session_id: sessionId, question: '' })).json).toMatchObject({ code: 10001, data: { field: 'body.question' } });
    expect((await complete({ session_id: sessionId, question: 'hi', route: 'chat' })).json).toMatchObject({
      code: 10001,
      data: { field: 'body.route' },
    });
    const unknownScenario = await complete({ session_id: sessionId, question: 'hi', route: '@poetry@llm@default@' });
    expect(unknownScenario.status).toBe(400);
    expect(unknownScenario.json).toMatchObject({ code: 10001, data: { part: 'scenario' } });
    expect(unknownScenario.json.message).toContain('poetry');
    expect((await complete({ session_id: sessionId, question: 'hi', route: '@chat@rules@default@' })).json).toMatchObject({
      code: 10001,
      data: { part: 'processor' },
    });
    expect((await complete({ session_id: sessionId, question: 'hi', route: '@chat@llm@loud@' })).json).toMatchObject({
      code: 10001,
      data: { part: 'mode' },
    });
    expect((await complete({ session_id: sessionId, question: 'hi', attachments: ['fil_unknown'] })).json).toMatchObject({
      code: 10004,
      data: { id: 'fil_unknown' },
    });
    expect((await complete({ session_id: sessionId, question: 'hi', context_ids: ['doc_unknown'] })).json).toMatchObject({
      code: 10004,
      data: { id: 'doc_unknown' },
    });

    await api.call('POST', `/v1/combo/sessions/${sessionId}/archive`, { key: api.adminKey });
    expect((await complete({ session_id: sessionId, question: 'hi' })).json).toMatchObject({ code: 10005 });
    expect(chatRequests()).toHaveLength(0);
  });

  it('runs one completion per session at a time: a second is refused with 10005', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('slow answer'), delayMs: 1_500 });
    const first = complete({ session_id: sessionId, question: 'one' });
    await eventually(async () => (chatRequests().length > 0 ? true : undefined), 10_000);
    const second = await complete({ session_id: sessionId, question: 'two' });
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ code: 10005, data: { session_id: sessionId } });
    expect((await first).json.data.answer).toBe('slow answer');
    scriptModel({ body: chatAnswer('next') });
    expect((await complete({ session_id: sessionId, question: 'three' })).json.data.answer).toBe('next');
  });

  it('takes the next question right after a streamed answer, while the previous run is still closing', async () => {
    // Several conversations at once, each asking again the moment `done` arrives: the previous
    // workflow is often still closing then, and the question must wait for it, not be refused.
    scriptModel({ stream: streamedAnswer('an answer', { pieces: 2 }) });
    const conversation = async () => {
      const sessionId = await newSession();
      const ends: string[] = [];
      for (let i = 0; i < 4; i++) {
        const reply = await stream({ session_id: sessionId, question: `question ${i}` });
        ends.push(`${reply.events.at(-2)?.event}:${reply.events.at(-1)?.event}`);
      }
      return ends;
    };
    const results = await Promise.all(Array.from({ length: 4 }, conversation));
    expect(results.flat()).toEqual(Array(16).fill('message:done'));
  });

  it('streams thinking, the growing answer and done, with contiguous ids', async () => {
    const sessionId = await newSession();
    scriptModel({ stream: streamedAnswer('Streaming works end to end.', { pieces: 5 }), chunkDelayMs: 60 });
    const reply = await stream({ session_id: sessionId, question: 'Does streaming work?' });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^text\/event-stream/);
    const events = reply.events;
    expect(events[0]).toMatchObject({ event: 'thinking', data: { phase: 'accepted', route: '@chat@llm@default@' } });
    const traceId = events[0]!.data.trace_id as string;
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `${traceId}:${i}`));
    expect(events[1]).toMatchObject({ event: 'thinking', data: { phase: 'model', step: 1 } });
    const messages = events.filter((e) => e.event === 'message').map((e) => e.data.answer as string);
    expect(messages.length).toBeGreaterThan(2);
    // Each message carries the whole answer so far.
    for (let i = 1; i < messages.length; i++) expect(messages[i]!.startsWith(messages[i - 1]!)).toBe(true);
    expect(messages.at(-1)).toBe('Streaming works end to end.');
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { session_id: sessionId, trace_id: traceId, cost: { tokens: expect.any(Number) } },
    });
  });

  it('keeps an idle stream alive with comments while the model is slow, and rides out a timed-out attempt', async () => {
    const sessionId = await newSession();
    // The first attempt outlasts LLM_TIMEOUT_MS (2 s) and is retried; the second answers.
    scriptModel({ body: chatAnswer('late'), delayMs: 2_600 }, { body: chatAnswer('Second attempt answered.') });
    const reply = await stream({ session_id: sessionId, question: 'Are you there?' });
    expect(reply.comments).toContain('keep-alive');
    expect(reply.events.map((e) => [e.event, e.data.phase])).toEqual(
      expect.arrayContaining([
        ['thinking', 'model'],
        ['thinking', 'model_retry'],
      ]),
    );
    expect(reply.events.at(-2)).toMatchObject({ event: 'message', data: { answer: 'Second attempt answered.' } });
    expect(chatRequests()).toHaveLength(2);
  });

  it('resumes a dropped stream with Last-Event-ID on another API process, losing and repeating nothing', async () => {
    const sessionId = await newSession();
    scriptModel({ stream: streamedAnswer('One two three four five six seven eight.', { pieces: 8 }), chunkDelayMs: 120 });
    const firstPart = await stream({ session_id: sessionId, question: 'Count to eight' }, { stopAfter: 3 });
    expect(firstPart.events).toHaveLength(3);
    const lastId = firstPart.events[2]!.id!;
    const traceId = firstPart.events[0]!.data.trace_id as string;

    // A second API process on the same database serves the rest.
    const otherApi = await startTestApi({
      MONGODB_DB: api.config.MONGODB_DB,
      TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
      BOOTSTRAP_API_KEY: api.adminKey,
    });
    try {
      const rest = await stream(
        { session_id: sessionId, question: 'Count to eight' },
        { headers: { 'last-event-id': lastId }, base: otherApi.url },
      );
      const all = [...firstPart.events, ...rest.events];
      expect(all.map((e) => e.id)).toEqual(all.map((_, i) => `${traceId}:${i}`));
      expect(all.at(-1)!.event).toBe('done');
      expect(all.filter((e) => e.event === 'done')).toHaveLength(1);

      // The whole stream again, from the start, with the GET endpoint.
      const replay = await readSse(`${otherApi.url}/v1/combo/completions/${traceId}/events`, {
        headers: { authorization: `Bearer ${api.adminKey}` },
      });
      expect(replay.events.map((e) => [e.id, e.event])).toEqual(all.map((e) => [e.id, e.event]));
      // Every event says when it was recorded, the same on every read: a timeline in order.
      const times = all.map((e) => e.data.timestamp as string);
      expect(replay.events.map((e) => e.data.timestamp)).toEqual(times);
      for (const time of times) expect(new Date(time).toISOString()).toBe(time);
      expect(times.map(Date.parse)).toEqual(times.map(Date.parse).sort((a, b) => a - b));
      // The answer came in pieces 120 ms apart: the timeline spans them.
      expect(Date.parse(times.at(-1)!) - Date.parse(times[0]!)).toBeGreaterThanOrEqual(7 * 100);
      const tail = await readSse(`${otherApi.url}/v1/combo/completions/${traceId}/events`, {
        headers: { authorization: `Bearer ${api.adminKey}`, 'last-event-id': `${traceId}:${all.length - 2}` },
      });
      expect(names(tail.events)).toEqual(['done']);
    } finally {
      await otherApi.close({ keepDatabase: true });
    }
    // Only one run happened.
    expect(await eventsOf('session.finished', sessionId)).toHaveLength(1);
    const bad = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
      key: api.adminKey,
      body: { session_id: sessionId, question: 'x', stream: true },
      headers: { 'last-event-id': 'garbage' },
    });
    expect(bad.json).toMatchObject({ code: 10001, data: { field: 'header.Last-Event-ID' } });
  });

  it('calls a skill tool over HTTP, streams the call and its result, records tool.called, and answers', async () => {
    const install = await api.call('POST', '/v1/skills/install', {
      key: api.adminKey,
      body: {
        manifest: {
          name: 'weather',
          version: '1.0.0',
          description: 'Weather forecasts',
          instructions: 'Use the forecast tool for any weather question.',
          tools: [
            {
              name: 'forecast',
              description: 'Forecast for a city',
              parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              http: { method: 'GET', url: `${tools.url}/weather`, timeout_ms: 1000 },
            },
          ],
        },
      },
    });
    expect(install.json.code).toBe(0);
    const skillId = install.json.data.skill_id;
    const sessionId = await newSession();

    // Before activation the session's model sees no weather tool.
    scriptModel({ body: chatAnswer('I cannot check the weather.') });
    await complete({ session_id: sessionId, question: 'Weather in Oslo?' });
    const before = chatRequests()[0]!.body as { tools?: Array<{ function: { name: string } }>; messages: Array<{ content: string }> };
    expect((before.tools ?? []).map((t) => t.function.name)).not.toContain('weather__forecast');

    expect(
      (await api.call('POST', `/v1/skills/${skillId}/activate`, { key: api.adminKey, body: { session_id: sessionId } })).json.code,
    ).toBe(0);
    scriptModel(
      { body: chatToolCall([{ id: 'call_1', name: 'weather__forecast', args: { city: 'Oslo' } }]) },
      { body: chatAnswer('It will be sunny in Oslo, 24°C.') },
    );
    const reply = await stream({ session_id: sessionId, question: 'Weather in Oslo?' });
    expect(names(reply.events)).toEqual(['thinking', 'thinking', 'tool_call', 'tool_result', 'thinking', 'message', 'message', 'done']);
    expect(reply.events[2]!.data).toEqual({ tool: 'weather__forecast', args: { city: 'Oslo' }, timestamp: expect.any(String) });
    expect(reply.events[3]!.data).toMatchObject({
      tool: 'weather__forecast',
      result: { status: 200, city: 'Oslo', forecast: 'sunny, 24°C' },
    });
    expect(reply.events.at(-2)!.data.answer).toBe('It will be sunny in Oslo, 24°C.');
    expect(tools.calls.at(-1)).toMatchObject({ method: 'GET', url: '/weather?city=Oslo' });

    const [withTool, afterTool] = chatRequests() as Array<{ body: any }>;
    expect(withTool!.body.tools.map((t: any) => t.function.name)).toContain('weather__forecast');
    expect(withTool!.body.messages[0].content).toContain('Use the forecast tool for any weather question.');
    expect(afterTool!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(JSON.parse(afterTool!.body.messages.at(-1).content)).toMatchObject({ forecast: 'sunny, 24°C' });

    const called = await eventsOf('tool.called', sessionId);
    expect(called.map((e) => e.data)).toEqual([
      expect.objectContaining({
        tool_name: 'weather__forecast',
        session_id: sessionId,
        args_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      }),
    ]);
  });

  it('feeds a failing tool back to the model (tool.error) and stops calling tools at the step limit', async () => {
    const install = await api.call('POST', '/v1/skills/install', {
      key: api.adminKey,
      body: {
        manifest: {
          name: 'tickets',
          version: '1.0.0',
          description: 'Tickets',
          instructions: '',
          tools: [
            {
              name: 'lookup',
              description: 'Look up a ticket',
              parameters: { type: 'object', properties: { id: { type: 'string' } } },
              http: { method: 'POST', url: `${tools.url}/broken` },
            },
          ],
        },
      },
    });
    const sessionId = await newSession();
    await api.call('POST', `/v1/skills/${install.json.data.skill_id}/activate`, { key: api.adminKey, body: { session_id: sessionId } });
    // The model keeps asking for the tool: the last step (COMPLETION_MAX_STEPS = 3) offers no tools.
    scriptModel(
      { body: chatToolCall([{ id: 'c1', name: 'tickets__lookup', args: { id: 'T-1' } }]) },
      { body: chatToolCall([{ id: 'c2', name: 'tickets__lookup', args: { id: 'T-2' } }]) },
      { body: chatAnswer('I could not find those tickets.') },
    );
    const reply = await complete({ session_id: sessionId, question: 'Find T-1' });
    expect(reply.json.data).toMatchObject({ answer: 'I could not find those tickets.', stop_reason: 'step_limit' });
    const requests = chatRequests() as Array<{ body: any }>;
    expect(requests).toHaveLength(3);
    expect(requests[2]!.body.tools).toBeUndefined();
    expect(JSON.parse(requests[1]!.body.messages.at(-1).content).error).toContain('400');
    const errors = await eventsOf('tool.error', sessionId);
    expect(errors).toHaveLength(2);
    expect(errors[0]!.data).toMatchObject({ tool_name: 'tickets__lookup', session_id: sessionId, error: expect.stringContaining('400') });
  });

  it('ends with 30002 when a tool times out, and with error then done on a stream', async () => {
    const install = await api.call('POST', '/v1/skills/install', {
      key: api.adminKey,
      body: {
        manifest: {
          name: 'slowpoke',
          version: '1.0.0',
          description: 'Slow',
          instructions: '',
          tools: [
            {
              name: 'wait',
              description: 'Waits',
              parameters: { type: 'object', properties: {} },
              http: { method: 'POST', url: `${tools.url}/slow`, timeout_ms: 300 },
            },
          ],
        },
      },
    });
    const sessionId = await newSession();
    await api.call('POST', `/v1/skills/${install.json.data.skill_id}/activate`, { key: api.adminKey, body: { session_id: sessionId } });
    scriptModel({ body: chatToolCall([{ id: 'w1', name: 'slowpoke__wait', args: {} }]) });
    const reply = await complete({ session_id: sessionId, question: 'wait please' });
    expect(reply.status).toBe(504);
    expect(reply.json).toMatchObject({ code: 30002, message: expect.stringContaining('timed out') });
    expect(await eventsOf('tool.error', sessionId)).toHaveLength(1);

    scriptModel({ body: chatToolCall([{ id: 'w2', name: 'slowpoke__wait', args: {} }]) });
    const streamed = await stream({ session_id: sessionId, question: 'wait again' });
    expect(names(streamed.events).slice(-2)).toEqual(['error', 'done']);
    expect(streamed.events.at(-2)!.data).toMatchObject({ code: 30002 });
    const run = await api.call('GET', `/v1/combo/completions/${streamed.events[0]!.data.trace_id}`, { key: api.adminKey });
    expect(run.json.data).toMatchObject({ status: 'failed', error: { code: 30002 } });
  });

  it('retries a failing model and ends with 30001 (a 4xx is not retried)', async () => {
    const sessionId = await newSession();
    scriptModel({ status: 503, body: { error: { message: 'overloaded' } } });
    const reply = await complete({ session_id: sessionId, question: 'hello?' });
    expect(reply.status).toBe(502);
    expect(reply.json).toMatchObject({ code: 30001, message: expect.stringContaining('language model') });
    expect(chatRequests()).toHaveLength(3);

    scriptModel({ status: 400, body: { error: { message: 'model not found' } } });
    const rejected = await stream({ session_id: sessionId, question: 'hello again?' });
    expect(names(rejected.events).slice(-2)).toEqual(['error', 'done']);
    expect(rejected.events.at(-2)!.data).toMatchObject({ code: 30001, message: expect.stringContaining('model not found') });
    expect(chatRequests()).toHaveLength(1);

    // Recovered upstream: the next question works again.
    scriptModel({ status: 503, body: { error: 'blip' } }, { body: chatAnswer('Back online.') });
    expect((await complete({ session_id: sessionId, question: 'now?' })).json.data.answer).toBe('Back online.');
  });

  it('reviews a diff with the rules processor and announces review.completed', async () => {
    scriptModel({ body: chatAnswer('never asked') });
    const sessionId = await newSession();
    const diff = [
      'Please review https://git.example.com/acme/app/pull/42',
      'diff --git a/src/db.js b/src/db.js',
      '--- a/src/db.js',
      '+++ b/src/db.js',
      '@@ -1,2 +1,4 @@',
      ' const db = require("./pool");',
      '+const password = "hunter2hunter2";',
      '+console.log("debug", password);',
      '+// TODO: remove before release',
    ].join('\n');
    const reply = await complete({ session_id: sessionId, question: diff, route: '@review@rules@default@' });
    expect(reply.json.code).toBe(0);
    expect(chatRequests()).toHaveLength(0);
    const [artifact] = reply.json.data.artifacts;
    expect(artifact).toMatchObject({
      type: 'review_report',
      issues_found: { critical: expect.any(Number), warning: expect.any(Number), info: expect.any(Number) },
    });
    expect(artifact.issues_found.critical).toBeGreaterThanOrEqual(1);
    const [event] = await eventsOf('review.completed', sessionId);
    expect(event!.data).toMatchObject({
      pr_url: 'https://git.example.com/acme/app/pull/42',
      issues_found: artifact.issues_found,
      cost: { tokens: 0 },
    });
    const reportPath = new URL(event!.data.report_url).pathname;
    const report = await api.call('GET', reportPath, { key: api.adminKey });
    expect(report.json.data).toMatchObject({ role: 'assistant', content: reply.json.data.answer });
    // The processor recorded the run with its answer: one local activity, one marker.
    const history = await worker.client.workflow.getHandle(`completion-${reply.json.data.trace_id}`).fetchHistory();
    expect(history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);

    const notADiff = await complete({ session_id: sessionId, question: 'no diff here', route: '@review@rules@default@' });
    expect(notADiff.json.code).toBe(10001);
  });

  it('imports requirements from CSV and announces import.completed', async () => {
    const sessionId = await newSession();
    const csv =
      'title,description,priority\nLogin with SSO,"Users sign in with SAML, OIDC",high\n,missing title,low\nExport to PDF,Reports as PDF,medium\n';
    const reply = await complete({ session_id: sessionId, question: csv, route: '@import@structured@requirements@' });
    expect(reply.json.data.artifacts[0]).toMatchObject({ type: 'import', count: 2 });
    expect(reply.json.data.artifacts[0].errors).toHaveLength(1);
    const events = await eventsOf('import.completed', sessionId);
    expect(events.map((e) => e.data)).toEqual([
      expect.objectContaining({ source: 'question', count: 2, errors: [expect.objectContaining({ row: expect.any(Number) })] }),
    ]);
  });

  it('imports bugs from an uploaded file and names the file as the source', async () => {
    const csv = 'title,severity,steps\nCrash on save,critical,Open and save\nTypo on login page,trivial,Look at it\n';
    const file = await api.upload('/v1/files', api.adminKey, {}, { name: 'bugs.csv', bytes: Buffer.from(csv), type: 'text/csv' });
    expect(file.json.code).toBe(0);
    const sessionId = await newSession();
    const reply = await complete({
      session_id: sessionId,
      question: 'Import the attached bugs',
      route: '@import@structured@bugs@',
      attachments: [file.json.data.file_id],
    });
    expect(reply.json.data.artifacts[0]).toMatchObject({ type: 'import', count: 2, source: 'bugs.csv', errors: [] });
    expect(reply.json.data.artifacts[0].items.map((i: { title: string }) => i.title)).toEqual(['Crash on save', 'Typo on login page']);
    const events = await eventsOf('import.completed', sessionId);
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ source: 'bugs.csv', count: 2, errors: [] })]);
  });

  describe('routes that use the model', () => {
    let kbId: string;
    let docIds: Record<string, string>;
    let ragAgent: string;

    beforeAll(async () => {
      kbId = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'Policies' } })).json.data.kb_id;
      const docs = {
        'refunds.md': '# Refunds\n\nRefunds are paid within five business days to the original payment method.\n',
        'shipping.md': '# Shipping\n\nOrders ship from Rotterdam; delivery inside the EU takes two to four days.\n',
      };
      docIds = {};
      for (const [name, text] of Object.entries(docs)) {
        const up = await api.upload(
          '/v1/document',
          api.adminKey,
          { kb_id: kbId },
          { name, bytes: Buffer.from(text), type: 'text/markdown' },
        );
        docIds[name] = up.json.data.doc_id;
        await eventually(
          async () =>
            (await api.call('GET', `/v1/document/${up.json.data.doc_id}`, { key: api.adminKey })).json.data.status === 'ready'
              ? true
              : undefined,
          60_000,
        );
      }
      ragAgent = (
        await api.call('POST', '/v1/combo/agents', {
          key: api.adminKey,
          body: { name: 'Support', kb_ids: [kbId], instructions: 'Be helpful.' },
        })
      ).json.data.agent_id;
    });
    const sessionOf = async (agent: string) =>
      (await api.call('POST', `/v1/combo/agents/${agent}/sessions`, { key: api.adminKey, body: {} })).json.data.session_id as string;

    it('kbqa: retrieves passages, gives them to the model to cite, and returns them as reference; context_ids restrict them', async () => {
      const sessionId = await sessionOf(ragAgent);
      scriptModel({ body: chatAnswer('Refunds take five business days [1].') });
      const reply = await complete({ session_id: sessionId, question: 'How long do refunds take?', route: '@kbqa@llm@concise@' }, ragAgent);
      expect(reply.json.data).toMatchObject({
        answer: 'Refunds take five business days [1].',
        route: '@kbqa@llm@concise@',
        offline: false,
      });
      expect(reply.json.data.reference[0]).toMatchObject({ index: 1, doc_id: docIds['refunds.md'], doc_name: 'refunds.md', kb_id: kbId });
      const system = (chatRequests()[0]!.body as any).messages[0].content as string;
      expect(system).toContain('[1] (refunds.md)');
      expect(system).toContain('five business days');
      expect(system).toMatch(/briefly/i);

      const question = 'How many days do refunds and deliveries take?';
      scriptModel({ body: chatAnswer('Both.') });
      const open = await complete({ session_id: sessionId, question, route: '@kbqa@llm@default@' }, ragAgent);
      expect(new Set(open.json.data.reference.map((r: { doc_id: string }) => r.doc_id))).toEqual(new Set(Object.values(docIds)));
      scriptModel({ body: chatAnswer('Only shipping is in context.') });
      const restricted = await complete(
        { session_id: sessionId, question, route: '@kbqa@llm@default@', context_ids: [docIds['shipping.md']] },
        ragAgent,
      );
      expect(restricted.json.data.reference.map((r: { doc_id: string }) => r.doc_id)).toEqual(
        expect.arrayContaining([docIds['shipping.md']]),
      );
      expect(restricted.json.data.reference.every((r: { doc_id: string }) => r.doc_id === docIds['shipping.md'])).toBe(true);
      // A document outside the agent's knowledge bases is refused.
      const otherKb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'Elsewhere' } })).json.data.kb_id;
      const foreign = await api.upload(
        '/v1/document',
        api.adminKey,
        { kb_id: otherKb },
        { name: 'x.md', bytes: Buffer.from('# X\n\nx'), type: 'text/markdown' },
      );
      expect(
        (await complete({ session_id: sessionId, question: 'x', context_ids: [foreign.json.data.doc_id] }, ragAgent)).json,
      ).toMatchObject({ code: 10004 });
    });

    it('agent: the model searches the knowledge bases and reads an attachment through built-in tools', async () => {
      const file = await api.upload(
        '/v1/files',
        api.adminKey,
        {},
        { name: 'order.txt', bytes: Buffer.from('Order 1234: two chairs, shipped to Lyon on 3 March.'), type: 'text/plain' },
      );
      expect(file.json.code).toBe(0);
      const fileId = file.json.data.file_id;
      const sessionId = await sessionOf(ragAgent);
      scriptModel(
        {
          body: chatToolCall([
            { id: 't1', name: 'read_attachment', args: { file_id: fileId } },
            { id: 't2', name: 'search_knowledge', args: { query: 'EU delivery time' } },
          ]),
        },
        { body: chatAnswer('Your chairs went to Lyon; EU delivery takes two to four days.') },
      );
      const reply = await complete(
        { session_id: sessionId, question: 'When will order 1234 arrive?', route: '@agent@llm@default@', attachments: [fileId] },
        ragAgent,
      );
      expect(reply.json.data.answer).toBe('Your chairs went to Lyon; EU delivery takes two to four days.');
      const [first, second] = chatRequests() as Array<{ body: any }>;
      expect(first!.body.tools.map((t: any) => t.function.name).sort()).toEqual(['current_time', 'read_attachment', 'search_knowledge']);
      expect(first!.body.messages.at(-1).content).toContain('two chairs, shipped to Lyon');
      const toolAnswers = second!.body.messages.filter((m: any) => m.role === 'tool');
      expect(JSON.parse(toolAnswers[0].content)).toMatchObject({
        file_id: fileId,
        name: 'order.txt',
        text: expect.stringContaining('Lyon'),
      });
      expect(JSON.parse(toolAnswers[1].content).passages[0]).toMatchObject({
        doc_name: 'shipping.md',
        content: expect.stringContaining('two to four days'),
      });
    });

    it('review with the model: counts the findings of its structured output and announces review.completed', async () => {
      const sessionId = await sessionOf(ragAgent);
      const findings = [
        { severity: 'critical', file: 'db.js', line: 12, message: 'SQL built from user input' },
        { severity: 'warning', file: 'db.js', line: 20, message: 'missing error handling' },
        { severity: 'warning', file: 'db.js', line: 31, message: 'unused variable' },
        { severity: 'info', file: 'db.js', line: null, message: 'typo in comment' },
      ];
      scriptModel({ body: chatAnswer(JSON.stringify({ report: '## Review\n- SQL built from user input in db.js:12', findings })) });
      const reply = await complete(
        { session_id: sessionId, question: 'Review https://git.example.com/acme/app/merge_requests/7', route: '@review@llm@default@' },
        ragAgent,
      );
      expect(reply.json.data.artifacts[0]).toMatchObject({ type: 'review_report', issues_found: { critical: 1, warning: 2, info: 1 } });
      expect((chatRequests()[0]!.body as any).response_format.type).toBe('json_schema');
      const [event] = await eventsOf('review.completed', sessionId);
      expect(event!.data).toMatchObject({
        pr_url: 'https://git.example.com/acme/app/merge_requests/7',
        issues_found: { critical: 1, warning: 2, info: 1 },
        cost: { tokens: 20 },
      });
    });

    it('import with the model: the JSON items the model returns are counted and announced', async () => {
      const sessionId = await sessionOf(ragAgent);
      scriptModel({
        body: chatAnswer(
          '```json\n[{"title":"Dark mode","priority":"low"},{"title":"Two-factor login","priority":"high"},{"description":"no title"}]\n```',
        ),
      });
      const reply = await complete(
        { session_id: sessionId, question: 'Import these: dark mode (low), two-factor login (high)', route: '@import@llm@default@' },
        ragAgent,
      );
      expect(reply.json.data.artifacts[0]).toMatchObject({ type: 'import', count: 2, source: 'question' });
      const [event] = await eventsOf('import.completed', sessionId);
      expect(event!.data).toMatchObject({ source: 'question', count: 2 });
      expect(event!.data.errors).toHaveLength(1);
    });
  });

  it('emits cost.threshold_exceeded once per period when the tenant passes its threshold', async () => {
    const sessionId = await newSession();
    scriptModel({ body: chatAnswer('expensive', { prompt_tokens: 700, completion_tokens: 100 }) });
    await complete({ session_id: sessionId, question: 'one' });
    await complete({ session_id: sessionId, question: 'two' });
    await complete({ session_id: sessionId, question: 'three' });
    // Costs are added to the period by the worker's aggregator, shortly after each run.
    const thresholdEvents = () =>
      api.services.mongo.db.collection('events').find({ event: 'cost.threshold_exceeded', tenant_id: 'default' }).toArray();
    await eventually(
      async () => ((await api.services.mongo.db.collection('cost_queue').countDocuments()) === 0 ? true : undefined),
      10_000,
    );
    const exceeded = await thresholdEvents();
    expect(exceeded).toHaveLength(1);
    const summary = await api.call('GET', '/v1/costs', { key: api.adminKey });
    expect(summary.json.data).toMatchObject({ threshold_tokens: 1000, threshold_exceeded: true });
    expect(summary.json.data.tokens).toBeGreaterThanOrEqual(2400);
    expect(exceeded[0]!.data).toMatchObject({
      tenant_id: 'default',
      period: expect.stringMatching(/^\d{4}-\d{2}$/),
      amount: expect.any(Number),
    });
    expect(exceeded[0]!.data.amount).toBeGreaterThanOrEqual(1000);
  });
});

describe('completions without a model (offline mode)', () => {
  let api: TestApi;
  let worker: Worker;

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000', RATE_LIMIT_UPLOADS_PER_MIN: '1000' });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it('answers from the knowledge bases, quoting and citing passages, and says no model was used', async () => {
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'Runbooks' } })).json.data;
    const text =
      '# Rollback\n\nTo roll back a deployment, run `deploy rollback --to previous` and confirm the health checks pass within five minutes.\n\n# Backups\n\nBackups run nightly at 02:00 UTC and are kept for thirty days.\n';
    const up = await api.upload(
      '/v1/document',
      api.adminKey,
      { kb_id: kb.kb_id },
      { name: 'runbook.md', bytes: Buffer.from(text), type: 'text/markdown' },
    );
    await eventually(
      async () =>
        (await api.call('GET', `/v1/document/${up.json.data.doc_id}`, { key: api.adminKey })).json.data.status === 'ready'
          ? true
          : undefined,
      60_000,
    );
    const agent = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Ops', kb_ids: [kb.kb_id] } })).json.data;
    const sessionId = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data
      .session_id;

    const reply = await api.call('POST', `/v1/combo/agents/${agent.agent_id}/completions`, {
      key: api.adminKey,
      body: { session_id: sessionId, question: 'How do I roll back a deployment?' },
    });
    expect(reply.json.data).toMatchObject({ offline: true, model: null, route: '@kbqa@extractive@default@' });
    expect(reply.json.data.answer).toMatch(/no language model/i);
    expect(reply.json.data.answer).toContain('[1]');
    expect(reply.json.data.answer).toContain('deploy rollback');
    expect(reply.json.data.reference[0]).toMatchObject({ index: 1, doc_id: up.json.data.doc_id, doc_name: 'runbook.md' });

    const restricted = await api.call('POST', `/v1/combo/agents/${agent.agent_id}/completions`, {
      key: api.adminKey,
      body: { session_id: sessionId, question: 'backups', context_ids: [up.json.data.doc_id], stream: true },
    });
    expect(restricted.text).toContain('event: done');
  });
});
