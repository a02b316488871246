import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callMcpTool, listMcpTools, McpCallError, McpTimeoutError } from '../../upstream/mcp/mcp-client';
import { type McpTestServer, startMcpTestServer } from '../support/mcp-test-server';

const TOKEN = 'Bearer unit-token';

/** The SDK client against a server built with the SDK, on loopback (no stack needed). */
describe('the MCP client (upstream/mcp)', () => {
  let mcp: McpTestServer;
  let redirecting: Server;
  let redirectUrl: string;
  const endpoint = (overrides: Partial<{ url: string; headers: Record<string, string>; allowPrivate: boolean }> = {}) => ({
    url: mcp.url,
    headers: { Authorization: TOKEN },
    allowPrivate: true,
    ...overrides,
  });

  beforeAll(async () => {
    mcp = await startMcpTestServer({ authorization: TOKEN });
    // Answers every request with a redirect to the real server: never followed.
    redirecting = createServer((_req, res) => res.writeHead(307, { location: mcp.url }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    redirectUrl = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await mcp.close();
    redirecting.closeAllConnections();
    await new Promise<void>((resolve) => redirecting.close(() => resolve()));
  });

  it('lists the tools with their schemas, sending the headers', async () => {
    const tools = await listMcpTools(endpoint(), 5_000);
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'fail', 'hang', 'secret_tool']);
    expect(tools.find((t) => t.name === 'echo')!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(mcp.seen.at(-1)!.headers.authorization).toBe(TOKEN);
  });

  it("answers a call's text, and a tool's own error as an error", async () => {
    await expect(callMcpTool(endpoint(), 'echo', { text: 'hi' }, { timeoutMs: 5_000 })).resolves.toEqual({
      ok: true,
      result: { text: 'echo: hi' },
    });
    await expect(callMcpTool(endpoint(), 'fail', {}, { timeoutMs: 5_000 })).resolves.toEqual({
      ok: false,
      error: 'the warehouse is closed',
    });
  });

  it('ends a call that does not answer in time with McpTimeoutError', async () => {
    const started = Date.now();
    await expect(callMcpTool(endpoint(), 'hang', {}, { timeoutMs: 300 })).rejects.toBeInstanceOf(McpTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a private address unless allowed, a refused login and a redirect, none worth retrying', async () => {
    const refusal = async (promise: Promise<unknown>) => {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(McpCallError);
      return err as McpCallError;
    };
    const privateRefused = await refusal(listMcpTools(endpoint({ allowPrivate: false }), 5_000));
    expect(privateRefused.message).toMatch(/private, loopback or reserved/);
    expect(privateRefused.retryable).toBe(false);
    const badLogin = await refusal(listMcpTools(endpoint({ headers: { Authorization: 'Bearer wrong' } }), 5_000));
    expect(badLogin.retryable).toBe(false);
    const before = mcp.seen.length;
    const redirected = await refusal(listMcpTools(endpoint({ url: redirectUrl }), 5_000));
    expect(redirected.retryable).toBe(false);
    expect(mcp.seen.length).toBe(before);
  });

  it('reports an unreachable server as worth another attempt', async () => {
    const err = await listMcpTools(endpoint({ url: 'http://127.0.0.1:1/mcp' }), 5_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpCallError);
    expect((err as McpCallError).retryable).toBe(true);
  });
});
