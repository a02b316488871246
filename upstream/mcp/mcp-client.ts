import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestInit as UndiciRequestInit } from 'undici';
import { UnsafeUrlError } from '../../common/net/url-guard';
import { guardedFetch } from '../guarded-fetch';

/** How the service announces itself to MCP servers (the `initialize` request's clientInfo). */
const CLIENT_INFO = { name: 'combo-agents', version: '1.0.0' };
/** Pages of tools/list read at most: a server with more is cut there. */
const MAX_LIST_PAGES = 10;

/** Where and how an MCP server is reached; `headers` are its opened secrets. */
export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
  /** Whether the URL may reach private addresses (ALLOW_PRIVATE_URLS, MCP_PRIVATE_HOSTS). */
  allowPrivate: boolean;
}

/** The server did not answer within the deadline. */
export class McpTimeoutError extends Error {
  override readonly name = 'McpTimeoutError';
}

/**
 * The server could not be used or refused the call: the message is written for the model (a tool
 * call's result) or the worker's log (a listing). `retryable`: a network failure or a 5xx answer.
 */
export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * fetch for the SDK's transport: the private-address guard on every connection (DNS rebinding
 * included), no redirect followed (it would skip the guard and carry the headers elsewhere), and
 * the operation's signal (its deadline and the activity's cancellation) on every request.
 */
const guardedMcpFetch =
  (allowPrivate: boolean, signal: AbortSignal): FetchLike =>
  async (url, init) => {
    const signals = init?.signal ? [init.signal, signal] : [signal];
    return guardedFetch(
      String(url),
      { ...(init as UndiciRequestInit), redirect: 'manual', signal: AbortSignal.any(signals) },
      { allowPrivate },
    );
  };

function describe(err: unknown): McpCallError | undefined {
  if (err instanceof UnsafeUrlError) return new McpCallError(`the MCP server's URL ${err.message}`, false);
  if (err instanceof StreamableHTTPError) return new McpCallError(`the MCP server answered: ${err.message}`, (err.code ?? 500) >= 500);
  if (err instanceof McpError) return new McpCallError(err.message, false);
  // undici's "fetch failed" (refused, reset, name not found).
  if (err instanceof TypeError) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return new McpCallError(`the MCP server could not be reached: ${cause ?? err.message}`, true);
  }
  return undefined;
}

/**
 * One operation on a server over a connection of its own (Streamable HTTP, stateless: initialize,
 * the operation, close), so that every Temporal activity stands alone: no session outlives it, and
 * any worker can run the next. The whole operation, connection included, has `timeoutMs`.
 */
async function withClient<T>(
  endpoint: McpEndpoint,
  { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal },
  operation: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: endpoint.headers, redirect: 'manual' },
    fetch: guardedMcpFetch(endpoint.allowPrivate, combined),
  });
  const client = new Client(CLIENT_INFO);
  const options = { signal: combined, timeout: timeoutMs };
  try {
    await client.connect(transport, options);
    return await operation(client, options);
  } catch (err) {
    if (deadline.aborted || (err instanceof McpError && err.code === Number(ErrorCode.RequestTimeout)))
      throw new McpTimeoutError(`the MCP server did not answer within ${timeoutMs} ms`);
    if (signal?.aborted) throw err;
    throw describe(err) ?? err;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Every tool the server lists (tools/list, following its pages). */
export async function listMcpTools(endpoint: McpEndpoint, timeoutMs: number, signal?: AbortSignal): Promise<Tool[]> {
  return withClient(endpoint, { timeoutMs, ...(signal ? { signal } : {}) }, async (client, options) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : {}, options);
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  });
}

/** What a call answered: the text of its content (and its structured content), or the error the tool reported. */
export type McpToolAnswer = { ok: true; result: Record<string, unknown> } | { ok: false; error: string };

type ContentItem = { type: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string } };

/** The text a model can read of a content item; binary content is named, not inlined. */
function textOf(item: ContentItem): string {
  if (item.type === 'text') return item.text ?? '';
  if (item.type === 'resource') return item.resource?.text ?? `[resource ${item.resource?.uri ?? ''}]`;
  return `[${item.type}${item.mimeType ? ` ${item.mimeType}` : ''}]`;
}

/** Calls one tool (tools/call). A tool's own failure (`isError`) is an answer, for the model to read. */
export async function callMcpTool(
  endpoint: McpEndpoint,
  tool: string,
  args: Record<string, unknown>,
  { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal },
): Promise<McpToolAnswer> {
  return withClient(endpoint, { timeoutMs, ...(signal ? { signal } : {}) }, async (client, options) => {
    const answer = await client.callTool({ name: tool, arguments: args }, undefined, options);
    const content = Array.isArray(answer.content) ? (answer.content as ContentItem[]) : [];
    const text = content.map(textOf).join('\n');
    if (answer.isError) return { ok: false, error: text || `the tool ${tool} failed` };
    return {
      ok: true,
      result: { text, ...(answer.structuredContent ? { structured_content: answer.structuredContent } : {}) },
    };
  });
}
