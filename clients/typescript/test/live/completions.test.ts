import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  APITimeoutError,
  APIUserAbortError,
  CompletionStream,
  NotFoundError,
  UpstreamModelError,
  type Agent,
  type CompletionReply,
  type RunAccepted,
  type StreamEvent,
} from '../../src/index';
import { eventually, newClient, tag } from '../support/client';

const client = newClient();
let agent: Agent;
const newSession = async () => (await client.sessions.create(agent.agent_id)).session_id;

beforeAll(async () => {
  agent = await client.agents.create({ name: `completions-${tag()}`, instructions: 'Answer briefly.' });
});
afterAll(async () => {
  await client.agents.delete(agent.agent_id);
});

describe.concurrent('completions.create', () => {
  test('answers the reply', async () => {
    const session_id = await newSession();
    const reply = await client.completions.create(agent.agent_id, { session_id, question: 'Hi' });
    expect(reply).toMatchObject({ session_id, answer: 'Echo: Hi', stop_reason: 'answered', model: 'scripted-model', offline: false });
    expect(reply.trace_id).toMatch(/^trc_/);
    expect(reply.cost.tokens).toBeGreaterThan(0);
  });

  test('a run still going after the reply wait (HTTP 202) is followed to its end', async () => {
    const session_id = await newSession();
    const { data, response } = await client.completions.create(agent.agent_id, { session_id, question: 'Tell me [slow]' }).withResponse();
    expect(response.status).toBe(202);
    expect(data).toMatchObject({ session_id, answer: 'Echo: Tell me [slow]', stop_reason: 'answered', route: '@chat@llm@default@' });
    expect(await client.runs.get(data.trace_id)).toMatchObject({ status: 'completed', question: 'Tell me [slow]' });
  });

  test('{ wait: false } answers the RunAccepted; runs.events follows the run', async () => {
    const session_id = await newSession();
    const accepted = (await client.completions.create(agent.agent_id, {
      session_id,
      question: 'Later [slow]',
      wait: false,
    })) as RunAccepted;
    expect(accepted).toMatchObject({ session_id, status: 'running', links: { self: `/v1/combo/completions/${accepted.trace_id}` } });
    const events: StreamEvent[] = [];
    const stream = client.runs.events(accepted.trace_id);
    for await (const event of stream) events.push(event);
    expect(events.at(-1)?.event).toBe('done');
    expect((await stream.final()).answer).toBe('Echo: Later [slow]');
  });

  test('completions.follow waits for an existing run to end and answers its reply; an ended run at once', async () => {
    const session_id = await newSession();
    const accepted = await client.completions.create(agent.agent_id, { session_id, question: 'Follow me [slow]', background: true });
    const { data: reply, response } = await client.completions.follow(accepted.trace_id).withResponse();
    expect(reply).toMatchObject({ session_id, trace_id: accepted.trace_id, answer: 'Echo: Follow me [slow]', stop_reason: 'answered' });
    expect(reply.cost.tokens).toBeGreaterThan(0);
    expect(response.status).toBe(200);
    expect((await client.runs.get(accepted.trace_id)).status).toBe('completed');
    // Again, the run ended: the same reply.
    expect(await client.completions.follow(accepted.trace_id)).toEqual(reply);
    await expect(client.completions.follow('trc_doesnotexist')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('completions.follow of a run that fails throws its typed error (30001)', async () => {
    const session_id = await newSession();
    const accepted = await client.completions.create(agent.agent_id, { session_id, question: 'Follow [fail]', background: true });
    const error = await client.completions.follow(accepted.trace_id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamModelError);
    expect(error).toMatchObject({ code: 30001, traceId: accepted.trace_id });
  });

  test('a failed run throws its typed error (30001)', async () => {
    const session_id = await newSession();
    const error = await client.completions.create(agent.agent_id, { session_id, question: 'Break [fail]' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamModelError);
    expect(error).toMatchObject({ code: 30001, traceId: expect.stringMatching(/^trc_/) as string });
  });
});

describe.concurrent('completions.stream', () => {
  test('typed events in order, then final() gives the outcome', async () => {
    const session_id = await newSession();
    const stream = await client.completions.stream(agent.agent_id, { session_id, question: 'Stream [slow]' });
    expect(stream).toBeInstanceOf(CompletionStream);
    expect(stream.response?.status).toBe(200);
    const events: StreamEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.event === 'thinking' && event.data.phase === 'accepted') expect(event.data.trace_id).toMatch(/^trc_/);
      if (event.event === 'message') expect(typeof event.data.answer).toBe('string');
    }
    const ids = events.map((e) => Number(e.id.split(':')[1]));
    expect(ids).toEqual(ids.map((_, i) => i));
    // When each event was recorded: a timeline in order.
    const times = events.map((e) => (e.event === 'unknown' ? Number.NaN : Date.parse(e.data.timestamp)));
    expect(times.every(Number.isFinite)).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.filter((e) => e.event === 'message').length).toBeGreaterThan(2);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { session_id, stop_reason: 'answered' } });
    const final = await stream.final();
    expect(final).toMatchObject({ session_id, trace_id: stream.traceId, answer: 'Echo: Stream [slow]', stop_reason: 'answered' });
    expect(final.cost?.tokens).toBeGreaterThan(0);
  });

  test('leaving the loop early closes the connection; final() then follows the run to its end', async () => {
    const session_id = await newSession();
    const stream = await client.completions.stream(agent.agent_id, { session_id, question: 'Partly [slow]' });
    for await (const event of stream) if (event.event === 'message') break;
    const final = await stream.final();
    expect(final).toMatchObject({ answer: 'Echo: Partly [slow]', stop_reason: 'answered' });
    const again: StreamEvent[] = [];
    for await (const event of stream) again.push(event);
    expect(again).toEqual([]);
  });

  test('create({ stream: true }) answers the stream; final() reads it to the end', async () => {
    const session_id = await newSession();
    const stream = await client.completions.create(agent.agent_id, { session_id, question: 'Quick', stream: true });
    expect(stream).toBeInstanceOf(CompletionStream);
    expect((await stream.final()).answer).toBe('Echo: Quick');
  });

  test('a failed run: the stream shows error then done (failed), and final() throws the typed error', async () => {
    const session_id = await newSession();
    const stream = await client.completions.stream(agent.agent_id, { session_id, question: 'Break [fail]' });
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-2)).toMatchObject({ event: 'error', data: { code: 30001 } });
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'failed' } });
    const error = await stream.final().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamModelError);
    expect(error).toMatchObject({ code: 30001, traceId: stream.traceId });
  });
});

describe.concurrent('runs', () => {
  test('a background run: get, lists, events, cancel', async () => {
    const session_id = await newSession();
    // [long]: 40 pieces 300 ms apart (the question is long enough to split so), so the run still goes when the cancel below lands.
    const question = 'A long answer, streamed slowly [long]';
    const accepted = await client.completions.create(agent.agent_id, { session_id, question, background: true });
    expect(accepted.status).toMatch(/running|queued/);
    const traceId = accepted.trace_id;

    const run = await client.runs.get(traceId);
    expect(run).toMatchObject({ trace_id: traceId, kind: 'chat', agent_id: agent.agent_id, session_id });
    const running = await client.runs.list({ status: 'running', page_size: 100 });
    expect(running.items.map((r) => r.trace_id)).toContain(traceId);
    expect((await client.runs.listForAgent(agent.agent_id, { kind: 'chat' })).items.map((r) => r.trace_id)).toContain(traceId);
    expect((await client.runs.listForSession(session_id)).items.map((r) => r.trace_id)).toEqual([traceId]);

    // Attach, see the run start, cancel it: the stream ends with done (canceled).
    const stream = client.runs.events(traceId);
    const seen: StreamEvent[] = [];
    let canceled: Promise<unknown> | undefined;
    for await (const event of stream) {
      seen.push(event);
      if (event.event === 'message' && !canceled) canceled = client.runs.cancel(traceId);
    }
    expect((await canceled) as object).toMatchObject({ trace_id: traceId, status: 'canceled' });
    expect(seen.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'canceled' } });
    expect((await client.runs.get(traceId)).status).toBe('canceled');
  });

  test('approvals: the run waits for a decision, runs.approvals.decide lets the tool run', async () => {
    const guarded = await client.agents.create({
      name: `approvals-${tag()}`,
      tools: ['current_time'],
      approval: { tools: ['current_time'], timeout_s: 60 },
    });
    const session = await client.sessions.create(guarded.agent_id);
    const stream = await client.completions.stream(guarded.agent_id, {
      session_id: session.session_id,
      question: 'What time is it? [tool:current_time]',
    });
    const names: string[] = [];
    for await (const event of stream) {
      names.push(event.event);
      if (event.event === 'approval_required') {
        expect(event.data.tool).toBe('current_time');
        expect((await client.runs.get(stream.traceId!)).status).toBe('waiting_approval');
        const decision = await client.runs.approvals.decide(stream.traceId!, event.data.approval_id, {
          decision: 'approve',
          comment: 'ok',
        });
        expect(decision).toMatchObject({ applied: true, approval: { status: 'approved', approval_id: event.data.approval_id } });
      }
    }
    expect(names).toEqual(expect.arrayContaining(['approval_required', 'approval_decided', 'tool_call', 'tool_result', 'done']));
    expect(names.indexOf('approval_decided')).toBeLessThan(names.indexOf('tool_result'));
    expect((await stream.final()).answer).toBe('Echo: What time is it? [tool:current_time]');
    const run = await client.runs.get(stream.traceId!);
    expect(run.approvals).toEqual([expect.objectContaining({ tool: 'current_time', status: 'approved', comment: 'ok' })]);
    expect(run.requested_by).toMatch(/^key_/);
    await client.agents.delete(guarded.agent_id);
  });
});

describe('cancellation and timeouts', () => {
  test('an AbortSignal cancels a waiting call and closes a stream', async () => {
    const controller = new AbortController();
    const pending = client.completions.create(
      agent.agent_id,
      { session_id: await newSession(), question: 'Abort me [slow]' },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 300);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);

    const streamAbort = new AbortController();
    const stream = await client.completions.stream(
      agent.agent_id,
      { session_id: await newSession(), question: 'Abort the stream [slow]' },
      { signal: streamAbort.signal },
    );
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event.event);
        if (event.event === 'message') streamAbort.abort();
      }
    })();
    await expect(reading).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).not.toContain('done');
  });

  test('a per-call timeout: APITimeoutError once the retries are spent', async () => {
    const session_id = await newSession();
    const started = Date.now();
    const error = await client.completions
      .create(agent.agent_id, { session_id, question: 'Too slow [slow]' }, { timeout: 300, maxRetries: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(Date.now() - started).toBeLessThan(1_400);
  });

  test('a session whose run is going refuses another (ConflictError), and the reply is typed', async () => {
    const session_id = await newSession();
    const first = await client.completions.create(agent.agent_id, { session_id, question: 'Busy [slow]', background: true });
    await eventually(async () => ((await client.runs.get(first.trace_id)).status === 'running' ? true : undefined));
    const error = await client.completions.create(agent.agent_id, { session_id, question: 'Me too' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 10005, status: 409 });
    const reply: CompletionReply = await client.completions.create(agent.agent_id, {
      session_id,
      question: 'After',
      multitask_strategy: 'enqueue',
    });
    expect(reply.answer).toBe('Echo: After');
  });
});
