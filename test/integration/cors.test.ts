import { startTestApi, type TestApi } from '../support/api';
import { startEarlyInRateWindow } from '../support/rate-window';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const CONSOLE = 'https://console.example.com';
const EXPOSED = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Trace-Id',
  'X-Deprecated',
  'X-Deprecated-Sunset',
  'Idempotent-Replayed',
];

let api: TestApi;
let closed: TestApi;
let worker: Worker;

beforeAll(async () => {
  api = await startTestApi({ CORS_ORIGINS: `${CONSOLE}, http://localhost:5173`, RATE_LIMIT_DEFAULT_PER_MIN: '5' });
  closed = await startTestApi();
  worker = await startTestWorker(api, { dispatcher: false });
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await closed?.close();
});

const preflight = (target: TestApi, origin: string) =>
  fetch(`${target.url}/v1/combo/agents`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key,last-event-id',
    },
  });
const exposedOf = (headers: Headers) => (headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim());

describe('CORS', () => {
  it('answers a preflight from a configured origin without credentials, before rate limiting counts it', async () => {
    await startEarlyInRateWindow();
    for (let i = 0; i < 6; i++) {
      const res = await preflight(api, CONSOLE);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(CONSOLE);
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'last-event-id']));
      expect(res.headers.get('access-control-allow-methods')).toContain('DELETE');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // Six preflights, a ceiling of five: none was counted against this address.
    const first = await api.call('GET', '/v1/combo/agents', { headers: { origin: CONSOLE } });
    expect(first.status).toBe(401);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('lets the page read errors: 401, 404 and 429 carry the CORS headers and expose the service headers', async () => {
    const unauthenticated = await api.call('GET', '/v1/combo/agents', { headers: { origin: CONSOLE } });
    expect(unauthenticated.json.code).toBe(10002);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(exposedOf(unauthenticated.headers)).toEqual(expect.arrayContaining(EXPOSED));

    const missing = await api.call('GET', '/v1/no-such-thing', { key: api.adminKey, headers: { origin: CONSOLE } });
    expect(missing.json.code).toBe(10004);
    expect(missing.headers.get('access-control-allow-origin')).toBe(CONSOLE);

    let limited: Awaited<ReturnType<TestApi['call']>> | undefined;
    for (let i = 0; i < 10 && limited?.status !== 429; i++)
      limited = await api.call('GET', '/v1/combo/agents', { headers: { origin: 'http://localhost:5173' } });
    expect(limited!.json.code).toBe(10006);
    expect(limited!.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(limited!.headers.get('retry-after')).not.toBeNull();
    expect(exposedOf(limited!.headers)).toContain('Retry-After');
  });

  it('streams a completion to a configured origin with the CORS headers', async () => {
    const agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Browser' } })).json.data.agent_id;
    const sessionId = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key: api.adminKey, body: {} })).json.data
      .session_id;
    const res = await fetch(`${api.url}/v1/combo/agents/${agentId}/completions`, {
      method: 'POST',
      headers: { origin: CONSOLE, authorization: `Bearer ${api.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sessionId, question: 'Hello?', stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(exposedOf(res.headers)).toContain('X-Trace-Id');
    expect(await res.text()).toContain('event: done');
  });

  it('gives other origins nothing, and none at all by default', async () => {
    const stranger = await preflight(api, 'https://evil.example.com');
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const get = await api.call('GET', '/v1/health', { headers: { origin: 'https://evil.example.com' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();

    const byDefault = await preflight(closed, CONSOLE);
    expect(byDefault.headers.get('access-control-allow-origin')).toBeNull();
    expect(
      (await closed.call('GET', '/v1/health', { headers: { origin: CONSOLE } })).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });
});
