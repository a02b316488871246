import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { jsonTextSchemas } from '../common/schemas/json-text';
import { type AnyRoute, registerRoute } from './route';

/** Builds the OpenAPI 3 document from the same route declarations that validate requests. */
export function buildOpenApiDocument(routes: AnyRoute[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`combo_…`) for service calls, or a console JWT carrying `tenant_id`, `sub` and `roles`.',
  });
  for (const route of routes) registerRoute(registry, route);
  // The schemas strings carry as JSON (SSE `data:` lines) are referenced from `contentSchema` only.
  const carried = jsonTextSchemas().map((schema) => ({ type: 'schema' as const, schema }));
  return new OpenApiGeneratorV31([...registry.definitions, ...carried]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent Orchestration Service API',
      version: '1.0.0',
      description:
        'Every response is the envelope `{code, data, message}` (code 0 on success) and carries X-RateLimit-Limit, ' +
        'X-RateLimit-Remaining and X-RateLimit-Reset. Ceilings per API key: completions 60/min, uploads 10/min, ' +
        'everything else 300/min; over the ceiling: HTTP 429, code 10006 and Retry-After. The OpenAI-compatible ' +
        "paths (/v1/openai/…) answer in OpenAI's own shapes instead, errors included, for OpenAI's clients; " +
        'their chat completions count as completions. The MCP server (/v1/mcp) answers JSON-RPC, its tool failures as ' +
        'tool results; each of its ask_agent calls also counts as a completion.',
    },
    servers: [{ url: '/' }],
  });
}
