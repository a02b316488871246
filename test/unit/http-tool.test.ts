import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callHttpTool, type HttpToolDefinition, TOOL_BODY_MAX_BYTES, ToolCallError, ToolTimeoutError } from '../../upstream/http-tool';

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
let seen: Seen[] = [];
let answer: (req: Seen, res: ServerResponse) => void;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = { method: req.method!, url: new URL(req.url!, 'http://local'), headers: req.headers, body };
      seen.push(request);
      answer(request, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen = [];
  answer = (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ echoed: req.method }));
  };
});

const tool = (
  http: Partial<HttpToolDefinition['http']> = {},
  parameters: Record<string, unknown> = {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['city'],
  },
): HttpToolDefinition => ({
  name: 'forecast',
  parameters,
  http: { method: 'GET', url: `${base}/weather?units=metric`, headers: { 'X-Client': 'combo' }, timeout_ms: 2_000, ...http },
});
const allowed = { allowPrivateUrls: true };

describe('callHttpTool', () => {
  it("sends GET arguments in the query string, next to the URL's own, with the fixed headers", async () => {
    const result = await callHttpTool(tool(), { city: 'Oslo', days: 3, tags: ['wind', 'rain'] }, allowed);
    expect(result).toEqual({ status: 200, body: { echoed: 'GET' } });
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req!.url.pathname).toBe('/weather');
    expect(req!.url.searchParams.get('units')).toBe('metric');
    expect(req!.url.searchParams.get('city')).toBe('Oslo');
    expect(req!.url.searchParams.get('days')).toBe('3');
    expect(req!.url.searchParams.getAll('tags')).toEqual(['wind', 'rain']);
    expect(req!.headers['x-client']).toBe('combo');
    expect(req!.body).toBe('');
  });

  it('sends POST arguments as a JSON body', async () => {
    const args = { city: 'Lima', days: 2 };
    const result = await callHttpTool(tool({ method: 'POST', url: `${base}/forecasts` }), args, allowed);
    expect(result).toEqual({ status: 200, body: { echoed: 'POST' } });
    expect(seen[0]!.url.search).toBe('');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual(args);
  });

  it('returns text answers as {text}, an empty answer as null, and cuts large answers at 64 KiB', async () => {
    answer = (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('sunny');
    };
    expect((await callHttpTool(tool(), { city: 'Rome' }, allowed)).body).toEqual({ text: 'sunny' });

    answer = (_req, res) => {
      res.statusCode = 204;
      res.end();
    };
    expect(await callHttpTool(tool(), { city: 'Rome' }, allowed)).toEqual({ status: 204, body: null });

    answer = (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: 'x'.repeat(TOOL_BODY_MAX_BYTES * 2) }));
    };
    const big = (await callHttpTool(tool(), { city: 'Rome' }, allowed)).body as { text: string; truncated: boolean };
    expect(big.truncated).toBe(true);
    expect(Buffer.byteLength(big.text)).toBe(TOOL_BODY_MAX_BYTES);
  });

  it('refuses arguments that do not match the parameters, without sending anything', async () => {
    const attempts: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /must have required property 'city'/],
      [{ city: 7 }, /arguments\.city must be string/],
      [{ city: 'Oslo', days: 0 }, /arguments\.days must be >= 1/],
    ];
    for (const [args, message] of attempts) {
      const err = await callHttpTool(tool(), args, allowed).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolCallError);
      expect((err as Error).message).toMatch(/^invalid arguments for tool forecast: /);
      expect((err as Error).message).toMatch(message);
    }
    const notObject = await callHttpTool(tool(), ['Oslo'] as unknown as Record<string, unknown>, allowed).catch((e: unknown) => e);
    expect(notObject).toBeInstanceOf(ToolCallError);
    expect(seen).toHaveLength(0);
  });

  it('reports a non-2xx answer as a ToolCallError carrying the status and the start of the body', async () => {
    answer = (_req, res) => {
      res.statusCode = 500;
      res.end(`upstream exploded ${'!'.repeat(10_000)}`);
    };
    const err = await callHttpTool(tool(), { city: 'Oslo' }, allowed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallError);
    expect(err).not.toBeInstanceOf(ToolTimeoutError);
    expect((err as ToolCallError).status).toBe(500);
    expect((err as ToolCallError).body).toMatch(/^upstream exploded/);
    expect((err as ToolCallError).body!.length).toBeLessThan(10_000);
    expect((err as Error).message).toContain('HTTP 500');
  });

  it('does not follow redirects', async () => {
    answer = (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://10.0.0.1/internal');
      res.end();
    };
    const err = await callHttpTool(tool(), { city: 'Oslo' }, allowed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallError);
    expect((err as ToolCallError).status).toBe(302);
    expect((err as Error).message).toContain('not followed');
    expect(seen).toHaveLength(1);
  });

  it('gives up after timeout_ms with a ToolTimeoutError', async () => {
    answer = (_req, res) => {
      const timer = setTimeout(() => res.end('{}'), 3_000);
      res.on('close', () => clearTimeout(timer));
    };
    const started = Date.now();
    const err = await callHttpTool(tool({ timeout_ms: 200 }), { city: 'Oslo' }, allowed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolTimeoutError);
    expect((err as ToolTimeoutError).timeoutMs).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('refuses private and loopback targets unless allowed, without sending anything', async () => {
    for (const url of [`${base}/weather`, 'http://10.1.2.3/x', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data']) {
      const err = await callHttpTool(tool({ url }), { city: 'Oslo' }, { allowPrivateUrls: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolCallError);
      expect((err as Error).message).toContain('private, loopback or reserved');
    }
    expect(seen).toHaveLength(0);
  });

  it('reports a server that cannot be reached as a ToolCallError', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await callHttpTool(tool({ url: `http://127.0.0.1:${port}/x` }), { city: 'Oslo' }, allowed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallError);
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});
