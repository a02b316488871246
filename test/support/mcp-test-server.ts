import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** What the server saw: each JSON-RPC method asked, with the request's headers. */
interface SeenRequest {
  method: string;
  tool?: string;
  headers: IncomingHttpHeaders;
}

/**
 * An MCP server built with the official SDK (Streamable HTTP, stateless: a server and transport per
 * request), with the tools the MCP tool tests call: `echo` answers its text, `hang` never answers
 * (until the client goes away), `fail` reports a tool error, `secret_tool` exists but no agent
 * allows it. A request without the expected `authorization` header is refused with 401.
 */
export async function startMcpTestServer({ authorization }: { authorization: string }) {
  const seen: SeenRequest[] = [];
  const hanging = new Set<() => void>();

  const mcpServer = () => {
    const server = new McpServer({ name: 'mcp-test-server', version: '1.0.0' });
    server.registerTool('echo', { description: 'Answers the text it is given', inputSchema: { text: z.string() } }, ({ text }) => ({
      content: [{ type: 'text', text: `echo: ${text}` }],
    }));
    server.registerTool(
      'hang',
      { description: 'Never answers', inputSchema: {} },
      (_args, extra) =>
        new Promise((resolve) => {
          const end = () => resolve({ content: [{ type: 'text', text: 'gave up' }] });
          hanging.add(end);
          extra.signal.addEventListener('abort', end);
        }),
    );
    server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'the warehouse is closed' }],
    }));
    server.registerTool('secret_tool', { description: 'Not for agents', inputSchema: {} }, () => ({
      content: [{ type: 'text', text: 'classified' }],
    }));
    return server;
  };

  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body: unknown = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        for (const message of Array.isArray(body) ? body : body ? [body] : []) {
          const m = message as { method?: string; params?: { name?: string } };
          if (m.method) seen.push({ method: m.method, ...(m.params?.name ? { tool: m.params.name } : {}), headers: req.headers });
        }
        if (req.headers.authorization !== authorization) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
          return;
        }
        if (req.method !== 'POST') {
          res.writeHead(405, { allow: 'POST' }).end();
          return;
        }
        const server = mcpServer();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    seen,
    /** The tools/call requests for `tool`. */
    callsOf: (tool: string) => seen.filter((s) => s.method === 'tools/call' && s.tool === tool),
    async close() {
      for (const end of hanging) end();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export type McpTestServer = Awaited<ReturnType<typeof startMcpTestServer>>;
