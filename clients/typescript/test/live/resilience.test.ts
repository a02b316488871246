/**
 * What the service does not do on demand, through a local proxy: a stream cut after its first events
 * (resumed with Last-Event-ID), a stream cut before any event (the POST repeated with its
 * Idempotency-Key), every connection cut (the resumes run out: APIConnectionError), and a 429
 * answered once (retried after Retry-After with the same key).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { APIConnectionError, type Agent, type CompletionStream, type StreamEvent } from '../../src/index';
import { BASE_URL, newClient, tag } from '../support/client';
import { startProxy, type Proxy, type ProxyContext } from '../support/proxy';

const client = newClient();
let agent: Agent;
let proxy: Proxy | undefined;

beforeAll(async () => {
  agent = await client.agents.create({ name: `resilience-${tag()}` });
});
afterAll(async () => {
  await proxy?.close();
  await client.agents.delete(agent.agent_id);
});

const isStreamPost = (ctx: ProxyContext) => ctx.request.method === 'POST' && ctx.request.url.endsWith('/completions');

/** Forwards a stream's first `events` events, then `inject` (raw SSE text), then drops the connection. */
function cutAfter(upstream: IncomingMessage, ctx: ProxyContext, events: number, inject = ''): void {
  ctx.res.writeHead(upstream.statusCode ?? 200, upstream.headers);
  let buffered = '';
  let sent = 0;
  upstream.setEncoding('utf8');
  upstream.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while (sent < events && (end = buffered.indexOf('\n\n')) >= 0) {
      const frame = buffered.slice(0, end + 2);
      buffered = buffered.slice(end + 2);
      ctx.res.write(frame);
      if (!frame.startsWith(':')) sent++;
    }
    if (sent >= events) {
      upstream.destroy();
      ctx.res.write(inject, () => ctx.res.socket?.destroy());
    }
  });
}

describe('streams resume', () => {
  test('a stream cut after its first events resumes with Last-Event-ID: every event once, in order', async () => {
    proxy = await startProxy(BASE_URL, async (ctx) => {
      const upstream = await ctx.forward();
      // The first connection: two events, a keep-alive comment and an event of a future name, then cut.
      if (isStreamPost(ctx) && ctx.index === 0) cutAfter(upstream, ctx, 2, ': keep-alive\n\nevent: future_thing\ndata: {"x":1}\n\n');
      else ctx.pass(upstream);
    });
    const viaProxy = newClient({ baseURL: proxy.url });
    const session = await client.sessions.create(agent.agent_id);
    const stream = await viaProxy.completions.stream(agent.agent_id, { session_id: session.session_id, question: 'Resume me [slow]' });
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);

    const known = events.filter((e) => e.event !== 'unknown');
    const ids = known.map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => `${stream.traceId}:${i}`));
    expect(known.at(-1)).toMatchObject({ event: 'done', data: { stop_reason: 'answered' } });
    expect(events.filter((e) => e.event === 'unknown')).toEqual([{ event: 'unknown', name: 'future_thing', id: '', data: { x: 1 } }]);
    expect(stream.resumes).toBe(1);

    const resume = proxy.requests[1]!;
    expect(resume.method).toBe('GET');
    expect(resume.url).toBe(`/v1/combo/completions/${stream.traceId}/events`);
    expect(resume.headers['last-event-id']).toBe(`${stream.traceId}:1`);
    expect((await stream.final()).answer).toBe('Echo: Resume me [slow]');
    await proxy.close();
    proxy = undefined;
  });

  test('a delta stream cut mid-answer resumes in delta mode: final() gives the whole answer', async () => {
    proxy = await startProxy(BASE_URL, async (ctx) => {
      const upstream = await ctx.forward();
      // Cut after the first message events: the resume goes on with the deltas after them.
      if (isStreamPost(ctx) && ctx.index === 0) cutAfter(upstream, ctx, 5);
      else ctx.pass(upstream);
    });
    const viaProxy = newClient({ baseURL: proxy.url });
    const session = await client.sessions.create(agent.agent_id);
    const stream = await viaProxy.completions.stream(agent.agent_id, {
      session_id: session.session_id,
      question: 'Resume my deltas [slow]',
      stream_format: 'delta',
    });
    const messages: Array<{ answer?: string; delta?: string }> = [];
    for await (const event of stream) if (event.event === 'message') messages.push(event.data);
    expect(stream.resumes).toBe(1);
    const resume = proxy.requests[1]!;
    expect(resume.url).toBe(`/v1/combo/completions/${stream.traceId}/events?stream_format=delta`);
    expect(messages.slice(0, -1).every((m) => m.answer === undefined && typeof m.delta === 'string')).toBe(true);
    expect(messages.at(-1)!.answer).toBe('Echo: Resume my deltas [slow]');
    expect((await stream.final()).answer).toBe('Echo: Resume my deltas [slow]');
    await proxy.close();
    proxy = undefined;
  });

  test('a stream cut before any event repeats the POST with its Idempotency-Key and attaches to the same run', async () => {
    proxy = await startProxy(BASE_URL, async (ctx) => {
      const upstream = await ctx.forward();
      if (isStreamPost(ctx) && ctx.index === 0) cutAfter(upstream, ctx, 0);
      else ctx.pass(upstream);
    });
    const viaProxy = newClient({ baseURL: proxy.url });
    const session = await client.sessions.create(agent.agent_id);
    const stream = await viaProxy.completions.stream(agent.agent_id, { session_id: session.session_id, question: 'Again [slow]' });
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `${stream.traceId}:${i}`));

    const posts = proxy.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    const runs = await client.runs.listForSession(session.session_id);
    expect(runs.items.map((r) => r.trace_id)).toEqual([stream.traceId]);
    await proxy.close();
    proxy = undefined;
  });
});

describe('stream resumes run out', () => {
  const isResume = (ctx: ProxyContext) => ctx.request.method === 'GET' && ctx.request.url.includes('/events');

  /** Reads the stream until it fails; answers the events seen and the error. */
  async function readUntilFailure(stream: CompletionStream): Promise<{ events: StreamEvent[]; error: unknown }> {
    const events: StreamEvent[] = [];
    try {
      for await (const event of stream) events.push(event);
    } catch (error) {
      return { events, error };
    }
    throw new Error('the stream ended without failing');
  }

  test('a proxy that cuts every connection: APIConnectionError after exactly maxStreamResumes resumes', async () => {
    proxy = await startProxy(BASE_URL, async (ctx) => {
      const upstream = await ctx.forward();
      // The POST's connection: two events, then cut; every resume: cut before any event.
      if (isStreamPost(ctx)) cutAfter(upstream, ctx, 2);
      else if (isResume(ctx)) cutAfter(upstream, ctx, 0);
      else ctx.pass(upstream);
    });
    const viaProxy = newClient({ baseURL: proxy.url, maxStreamResumes: 3 });
    const session = await client.sessions.create(agent.agent_id);
    const stream = await viaProxy.completions.stream(agent.agent_id, { session_id: session.session_id, question: 'Cut me [slow]' });
    const { events, error } = await readUntilFailure(stream);

    expect(error).toBeInstanceOf(APIConnectionError);
    expect(stream.resumes).toBe(3);
    expect(events.map((e) => e.id)).toEqual([`${stream.traceId}:0`, `${stream.traceId}:1`]);
    const resumes = proxy.requests.filter((r) => r.method === 'GET');
    expect(resumes).toHaveLength(3);
    expect(resumes.map((r) => r.headers['last-event-id'])).toEqual(Array(3).fill(`${stream.traceId}:1`));
    expect(proxy.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    await proxy.close();
    proxy = undefined;
  });

  test('maxStreamResumes counts failed reconnections in a row: an event received starts the count again', async () => {
    proxy = await startProxy(BASE_URL, async (ctx) => {
      const upstream = await ctx.forward();
      // The POST: one event; resume 1: none; resume 2: one event; every later resume: none.
      if (isStreamPost(ctx)) cutAfter(upstream, ctx, 1);
      else if (isResume(ctx)) cutAfter(upstream, ctx, ctx.index === 2 ? 1 : 0);
      else ctx.pass(upstream);
    });
    const viaProxy = newClient({ baseURL: proxy.url, maxStreamResumes: 2 });
    const session = await client.sessions.create(agent.agent_id);
    const stream = await viaProxy.completions.stream(agent.agent_id, { session_id: session.session_id, question: 'Cut again [slow]' });
    const { events, error } = await readUntilFailure(stream);

    expect(error).toBeInstanceOf(APIConnectionError);
    // Two failed in a row, an event (the count starts again), two more failed in a row, then the third.
    expect(stream.resumes).toBe(4);
    expect(events.map((e) => e.id)).toEqual([`${stream.traceId}:0`, `${stream.traceId}:1`]);
    expect(proxy.requests.filter((r) => r.method === 'GET').map((r) => r.headers['last-event-id'])).toEqual([
      `${stream.traceId}:0`,
      `${stream.traceId}:0`,
      `${stream.traceId}:1`,
      `${stream.traceId}:1`,
    ]);
    await proxy.close();
    proxy = undefined;
  });
});

describe('retries', () => {
  test('a 429 is retried after Retry-After with the same Idempotency-Key; the agent is created once', async () => {
    proxy = await startProxy(BASE_URL, async (ctx) => {
      if (ctx.index === 0) {
        ctx.res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'x-trace-id': 'trc_proxy429' });
        ctx.res.end(JSON.stringify({ code: 10006, data: { trace_id: 'trc_proxy429' }, message: 'rate limit exceeded' }));
        return;
      }
      ctx.pass(await ctx.forward());
    });
    const viaProxy = newClient({ baseURL: `${proxy.url}/v1` });
    const name = `retried-${tag()}`;
    const started = Date.now();
    const agentCreated = await viaProxy.agents.create({ name });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    expect(proxy.requests).toHaveLength(2);
    const [first, second] = proxy.requests;
    expect(first!.headers['idempotency-key']).toBeTruthy();
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    const named = [];
    for await (const a of client.agents.list({ page_size: 100 })) if (a.name === name) named.push(a.agent_id);
    expect(named).toEqual([agentCreated.agent_id]);
    await client.agents.delete(agentCreated.agent_id);
  });

  test('the retries spent, the 429 is a RateLimitError with retryAfter', async () => {
    await proxy?.close();
    proxy = await startProxy(BASE_URL, (ctx) => {
      ctx.res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      ctx.res.end(JSON.stringify({ code: 10006, data: { trace_id: 'trc_limited' }, message: 'rate limit exceeded' }));
    });
    const error = await newClient({ baseURL: proxy.url, maxRetries: 1 })
      .agents.list()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RateLimitError', code: 10006, status: 429, retryAfter: 0, traceId: 'trc_limited' });
    expect(proxy.requests).toHaveLength(2);
  });
});
