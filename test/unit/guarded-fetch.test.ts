import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardedAgent, guardedFetch, guardedLookup } from '../../upstream/guarded-fetch';
import { assertPublicHttpUrl, type Resolver, UnsafeUrlError } from '../../common/net/url-guard';
import { callHttpTool, ToolCallError } from '../../upstream/http-tool';

let server: Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
});

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
/** Answers each lookup with the next of `answers` (the last one repeats), counting the calls. */
function scriptedResolver(...answers: LookupAddress[][]): Resolver & { calls: number } {
  const resolver = Object.assign(async () => answers[Math.min(resolver.calls++, answers.length - 1)]!, { calls: 0 });
  return resolver;
}
function lookupOnce(resolve: Resolver, options: { all?: boolean; family?: number }) {
  return new Promise<{ err: Error | null; address: unknown; family?: number }>((done) =>
    guardedLookup(resolve)('svc.test', options, (err, address, family) => done({ err, address, family })),
  );
}

describe('the connect-time lookup', () => {
  it('hands the socket exactly the addresses it checked', async () => {
    const resolver = scriptedResolver([v4('93.184.216.34'), { address: '2606:2800:220:1::1', family: 6 }]);
    expect(await lookupOnce(resolver, { all: true })).toMatchObject({
      err: null,
      address: [v4('93.184.216.34'), { address: '2606:2800:220:1::1', family: 6 }],
    });
    expect(await lookupOnce(resolver, {})).toMatchObject({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookupOnce(resolver, { family: 6 })).toMatchObject({ err: null, address: '2606:2800:220:1::1', family: 6 });
  });

  it('refuses a name when any of its addresses is private, and passes resolution failures on', async () => {
    const mixed = await lookupOnce(scriptedResolver([v4('93.184.216.34'), v4('10.0.0.8')]), { all: true });
    expect(mixed.err).toBeInstanceOf(UnsafeUrlError);
    expect(mixed.err!.message).toContain('10.0.0.8');
    const failing = await lookupOnce(async () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' })), {});
    expect(failing.err).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('guarded fetch', () => {
  it('refuses a name that resolves to loopback (localhost) without sending anything, unless private URLs are allowed', async () => {
    await expect(guardedFetch(`http://localhost:${port}/x`, {}, { allowPrivate: false })).rejects.toBeInstanceOf(UnsafeUrlError);
    await expect(guardedFetch(`http://127.0.0.1:${port}/x`, {}, { allowPrivate: false })).rejects.toBeInstanceOf(UnsafeUrlError);
    expect(seen).toEqual([]);
    expect((await guardedFetch(`http://localhost:${port}/x`, {}, { allowPrivate: true })).status).toBe(200);
    expect(seen).toEqual(['/x']);
  });

  it('checks the address it connects to: a name that was public when checked and private when connected is refused (DNS rebinding)', async () => {
    const rebinding = scriptedResolver([v4('93.184.216.34')], [v4('127.0.0.1')]);
    const agent = createGuardedAgent(rebinding);
    try {
      // The check made when the URL was configured saw a public address...
      await expect(assertPublicHttpUrl(`http://rebind.test:${port}/hook`, false, rebinding)).resolves.toBeInstanceOf(URL);
      // ...the connection's own lookup sees loopback, and that is the one refused.
      const err = await guardedFetch(
        `http://rebind.test:${port}/hook`,
        { method: 'POST', body: '{}' },
        { allowPrivate: false, agent },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect((err as Error).message).toContain('127.0.0.1');
      expect(rebinding.calls).toBe(2);
      expect(seen).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  // Each of these reaches something other than a public host; the IPv4-mapped loopback answer would
  // reach this very test server if it were let through.
  it.each([
    ['IPv4-mapped loopback', { address: '::ffff:127.0.0.1', family: 6 }],
    ['NAT64 (64:ff9b::/96) of loopback', { address: '64:ff9b::7f00:1', family: 6 }],
    ['6to4 of a private address', { address: '2002:a00:1::1', family: 6 }],
    ['Teredo', { address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', family: 6 }],
    ['IPv6 link-local', { address: 'fe80::1', family: 6 }],
    ['IPv6 documentation', { address: '2001:db8::1', family: 6 }],
    ['shared address space (carrier-grade NAT)', v4('100.64.0.1')],
    ['benchmarking', v4('198.18.0.1')],
    ['IETF protocol assignments', v4('192.0.0.9')],
  ])('refuses a name that resolves to %s when it connects, sending nothing', async (_, answer) => {
    const agent = createGuardedAgent(scriptedResolver([answer]));
    try {
      const err = await guardedFetch(`http://svc.test:${port}/x`, {}, { allowPrivate: false, agent }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsafeUrlError);
      expect((err as Error).message).toContain(`svc.test is ${answer.address}`);
      expect(seen).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('makes a skill tool call fail as a ToolCallError naming the refusal', async () => {
    const agent = createGuardedAgent(scriptedResolver([v4('127.0.0.1')]));
    try {
      const tool = { name: 'weather', parameters: { type: 'object' }, http: { method: 'GET', url: `http://weather.test:${port}/now` } };
      const err = await callHttpTool(tool, {}, { allowPrivateUrls: false, agent }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolCallError);
      expect((err as Error).message).toMatch(/cannot be called: its URL points at a private, loopback or reserved address/);
      expect(seen).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
