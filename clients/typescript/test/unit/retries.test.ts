/** Retry policy and timing, against a scripted fetch (no service needed). */
import { describe, expect, test } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  Combo,
  InternalServerError,
  RateLimitError,
  UpstreamModelError,
  type ClientOptions,
} from '../../src/index';
import { backoffMs, retryAfterMs } from '../../src/core';
import { envelope, ok, scripted, type Step } from '../support/scripted';

const agent = { agent_id: 'agt_1', name: 'a' };

function client(steps: Step[], options: ClientOptions = {}) {
  const { fetch, calls } = scripted(steps);
  return { client: new Combo({ baseURL: 'http://combo.test/v1', apiKey: 'combo_test', fetch, ...options }), calls };
}

describe('backoff', () => {
  test('0.5 s doubling, capped at 8 s, jittered down by at most a quarter', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    expect(backoffMs(0, () => 1)).toBe(375);
    for (let i = 0; i < 100; i++) {
      const ms = backoffMs(2);
      expect(ms).toBeGreaterThanOrEqual(1500);
      expect(ms).toBeLessThanOrEqual(2000);
    }
  });

  test('Retry-After in seconds or as a date, capped at 60 s', () => {
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs('0.25')).toBe(250);
    expect(retryAfterMs('3600')).toBe(60_000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 5)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(5000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe('retries', () => {
  test('429 waits Retry-After and resends the POST with the same Idempotency-Key', async () => {
    const { client: c, calls } = client([envelope(429, 10006, {}, { 'retry-after': '1' }), ok(agent)]);
    const started = Date.now();
    await expect(c.agents.create({ name: 'a' })).resolves.toEqual(agent);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - started).toBeGreaterThanOrEqual(990);
    const key = calls[0]!.headers.get('idempotency-key');
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(calls[1]!.headers.get('idempotency-key')).toBe(key);
    expect(calls[0]!.headers.get('authorization')).toBe('Bearer combo_test');
    expect(calls[0]!.url).toBe('http://combo.test/v1/combo/agents');
  });

  test('a caller-given idempotencyKey is sent on every attempt; each call has its own otherwise', async () => {
    const { client: c, calls } = client([envelope(503, 20001, {}, { 'retry-after': '0' }), ok(agent)]);
    await c.agents.create({ name: 'a' }, { idempotencyKey: 'my-key' });
    expect(calls.map((call) => call.headers.get('idempotency-key'))).toEqual(['my-key', 'my-key']);
    await c.agents.create({ name: 'a' });
    await c.agents.create({ name: 'a' });
    expect(calls[2]!.headers.get('idempotency-key')).not.toBe(calls[3]!.headers.get('idempotency-key'));
    await c.agents.list();
    expect(calls[4]!.headers.get('idempotency-key')).toBeNull();
  });

  test('500 and 503 and network errors are retried with backoff, up to maxRetries', async () => {
    const { client: c, calls } = client([envelope(500, 20001), new TypeError('fetch failed'), envelope(503, 20001), ok(agent)], {
      maxRetries: 3,
    });
    const started = Date.now();
    await expect(c.agents.get('agt_1')).resolves.toEqual(agent);
    expect(calls).toHaveLength(4);
    // 0.375-0.5 s, 0.75-1 s, 1.5-2 s
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(370);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(740);
    expect(calls[3]!.at - calls[2]!.at).toBeGreaterThanOrEqual(1490);
    expect(Date.now() - started).toBeLessThan(4500);
  }, 10_000);

  test('the retries spent, the last failure is thrown, typed', async () => {
    const { client: c, calls } = client([envelope(500, 20001, { trace_id: 'trc_x' })], { maxRetries: 1 });
    const error = await c.agents.get('agt_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ code: 20001, status: 500, traceId: 'trc_x' });
    expect(calls).toHaveLength(2);

    const { client: down } = client([new TypeError('fetch failed')], { maxRetries: 0 });
    await expect(down.agents.get('agt_1')).rejects.toBeInstanceOf(APIConnectionError);
  });

  test("a network error's message is its innermost cause's (the socket's code and address), the causes kept", async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9399'), { code: 'ECONNREFUSED' });
    const fetchFailed = new TypeError('fetch failed', { cause: refused });
    const error = await client([fetchFailed], { maxRetries: 0 })
      .client.agents.get('agt_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe('Connection error: connect ECONNREFUSED 127.0.0.1:9399');
    expect((error as Error).cause).toBe(fetchFailed);

    // Every address refused (an AggregateError with no message of its own); a code not in the message is added.
    const each = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const all = Object.assign(new AggregateError([each('::1:9399'), each('127.0.0.1:9399')], ''), { code: 'ECONNREFUSED' });
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const messages = await Promise.all(
      [all, reset].map((cause) =>
        client([new TypeError('fetch failed', { cause })], { maxRetries: 0 })
          .client.agents.get('agt_1')
          .catch((e: unknown) => (e as Error).message),
      ),
    );
    expect(messages).toEqual([
      'Connection error: connect ECONNREFUSED ::1:9399; connect ECONNREFUSED 127.0.0.1:9399',
      'Connection error: other side closed (UND_ERR_SOCKET)',
    ]);
  });

  test('502 and 504: retried on GETs and chunk search, never on completions or other POSTs', async () => {
    const gateway = () => envelope(502, 30001, {}, { 'retry-after': '0' });
    const get = client([gateway(), ok(agent)]);
    await expect(get.client.agents.get('agt_1')).resolves.toEqual(agent);
    expect(get.calls).toHaveLength(2);

    const search = client([envelope(504, 30002, {}, { 'retry-after': '0' }), ok({ chunks: [] })]);
    await expect(search.client.chunks.search({ question: 'q', kb_ids: ['kb_1'] })).resolves.toEqual({ chunks: [] });
    expect(search.calls).toHaveLength(2);

    const completion = client([gateway(), ok({})]);
    await expect(completion.client.completions.create('agt_1', { session_id: 'ses_1', question: 'q' })).rejects.toBeInstanceOf(
      UpstreamModelError,
    );
    expect(completion.calls).toHaveLength(1);

    const post = client([gateway(), ok(agent)]);
    await expect(post.client.agents.create({ name: 'a' })).rejects.toMatchObject({ code: 30001 });
    expect(post.calls).toHaveLength(1);
  });

  test('4xx other than 429 are not retried; 409 "still being processed" with Retry-After is', async () => {
    const notFound = client([envelope(404, 10004), ok(agent)]);
    await expect(notFound.client.agents.get('agt_1')).rejects.toMatchObject({ code: 10004 });
    expect(notFound.calls).toHaveLength(1);

    const inProgress = client([envelope(409, 10005, { field: 'header.Idempotency-Key' }, { 'retry-after': '0' }), ok(agent)]);
    await expect(inProgress.client.agents.create({ name: 'a' })).resolves.toEqual(agent);
    expect(inProgress.calls).toHaveLength(2);
  });

  test('ready() is not retried by default: a 503 is answered at once, as a typed error', async () => {
    const notReady = () => envelope(503, 20001, { down: ['mongodb'], checks: {} }, { 'retry-after': '5' });
    const { client: c, calls } = client([notReady(), ok({ status: 'ready', checks: {} })]);
    const started = Date.now();
    const error = await c.service.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ code: 20001, status: 503, data: { down: ['mongodb'] } });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe('http://combo.test/v1/ready');
    expect(Date.now() - started).toBeLessThan(1000);

    // The caller may ask for retries; other reads are retried as ever.
    const asked = client([envelope(503, 20001, {}, { 'retry-after': '0' }), ok({ status: 'ready', checks: {} })]);
    await expect(asked.client.service.ready({ maxRetries: 1 })).resolves.toEqual({ status: 'ready', checks: {} });
    expect(asked.calls).toHaveLength(2);
    const health = client([envelope(503, 20001, {}, { 'retry-after': '0' }), ok({ status: 'ok' })]);
    await expect(health.client.service.health()).resolves.toEqual({ status: 'ok' });
    expect(health.calls).toHaveLength(2);
  });

  test('RateLimitError carries retryAfter', async () => {
    const { client: c } = client([envelope(429, 10006, {}, { 'retry-after': '7' })], { maxRetries: 0 });
    const error = await c.agents.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(7);
  });
});

describe('timeouts and cancellation', () => {
  const hanging = (signal: AbortSignal) =>
    new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));

  test('each attempt has the timeout; then APITimeoutError', async () => {
    const { client: c, calls } = client([hanging], { timeout: 100, maxRetries: 1 });
    const started = Date.now();
    await expect(c.agents.get('agt_1')).rejects.toBeInstanceOf(APITimeoutError);
    expect(calls).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200 + 370);
  });

  test('a per-call timeout overrides the client one', async () => {
    const { client: c } = client([hanging], { timeout: 60_000 });
    await expect(c.agents.get('agt_1', { timeout: 50, maxRetries: 0 })).rejects.toBeInstanceOf(APITimeoutError);
  });

  test('the caller aborting: APIUserAbortError, no retry, also while waiting to retry', async () => {
    const { client: c, calls } = client([hanging]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(c.agents.get('agt_1', { signal: controller.signal })).rejects.toBeInstanceOf(APIUserAbortError);
    expect(calls).toHaveLength(1);

    const waiting = client([envelope(429, 10006, {}, { 'retry-after': '30' })]);
    const later = new AbortController();
    setTimeout(() => later.abort(), 100);
    const started = Date.now();
    await expect(waiting.client.agents.get('agt_1', { signal: later.signal })).rejects.toBeInstanceOf(APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(1000);

    const aborted = new AbortController();
    aborted.abort();
    await expect(c.agents.get('agt_1', { signal: aborted.signal })).rejects.toBeInstanceOf(APIUserAbortError);
  });
});

describe('configuration', () => {
  test('base URL with or without /v1 and trailing slashes; environment defaults', () => {
    expect(new Combo({ baseURL: 'http://h:1/v1/' }).baseURL).toBe('http://h:1');
    expect(new Combo({ baseURL: 'http://h:1' }).baseURL).toBe('http://h:1');
    const saved = { url: process.env.COMBO_BASE_URL, key: process.env.COMBO_API_KEY };
    process.env.COMBO_BASE_URL = 'http://from-env:2/v1';
    process.env.COMBO_API_KEY = 'combo_env';
    try {
      const c = new Combo();
      expect([c.baseURL, c.apiKey, c.maxRetries, c.timeout, c.maxStreamResumes]).toEqual(['http://from-env:2', 'combo_env', 2, 600_000, 5]);
    } finally {
      for (const [name, value] of [
        ['COMBO_BASE_URL', saved.url],
        ['COMBO_API_KEY', saved.key],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  test('default headers and per-call headers are sent', async () => {
    const { client: c, calls } = client([ok(agent)], { defaultHeaders: { 'x-team': 'qa' } });
    await c.agents.get('agt 1/x', { headers: { 'X-Request': 'r1' } });
    expect(calls[0]!.headers.get('x-team')).toBe('qa');
    expect(calls[0]!.headers.get('x-request')).toBe('r1');
    expect(calls[0]!.url).toBe('http://combo.test/v1/combo/agents/agt%201%2Fx');

    // A default Authorization (a console token) replaces the API key's rather than joining it.
    const jwt = client([ok(agent)], { defaultHeaders: { Authorization: 'Bearer console.jwt' } });
    await jwt.client.agents.get('agt_1');
    expect(jwt.calls[0]!.headers.get('authorization')).toBe('Bearer console.jwt');
  });
});
