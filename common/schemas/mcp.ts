import { z } from 'zod';

const jsonRpcId = z.union([z.string(), z.number().int()]).meta({ description: 'the JSON-RPC request id' });

const jsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: jsonRpcId.optional().meta({ description: 'absent on notifications (answered 202 without a body)' }),
    method: z.string().meta({ description: '`initialize`, `tools/list`, `tools/call`, `ping`, `notifications/initialized`, …' }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'McpJsonRpcMessage', description: 'A JSON-RPC 2.0 request or notification of the Model Context Protocol' });

/** The body of POST /v1/mcp, as documented: one JSON-RPC message (a batch of them on the 2025-03-26 revision). */
export const mcpRequestBody = z.union([jsonRpcMessage, z.array(jsonRpcMessage).min(1)]);

const jsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([jsonRpcId, z.null()]),
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "the method's result (a tool's failure is a result with `isError: true`); absent with `error`" }),
    error: z
      .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
      .optional()
      .meta({ description: 'a protocol error (unknown method or tool, invalid params); absent with `result`' }),
  })
  .meta({ id: 'McpJsonRpcResponse', description: 'A JSON-RPC 2.0 response: `result` or `error`' });

/** What POST /v1/mcp answers to requests (200, application/json). */
export const mcpResponseBody = z.union([jsonRpcResponse, z.array(jsonRpcResponse)]);

/** RFC 9728 protected-resource metadata of /v1/mcp. */
export const protectedResourceMetadata = z
  .object({
    resource: z.string().meta({ description: 'the protected resource: PUBLIC_BASE_URL + /v1/mcp' }),
    authorization_servers: z.array(z.string()).meta({ description: 'the identity provider (JWT_ISSUER) whose tokens it takes' }),
    bearer_methods_supported: z.array(z.literal('header')),
    resource_name: z.string(),
  })
  .meta({ id: 'OAuthProtectedResourceMetadata', description: 'RFC 9728 protected-resource metadata' });

export type ProtectedResourceMetadata = z.infer<typeof protectedResourceMetadata>;
