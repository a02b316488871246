import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { PROCESS_BACKENDS } from '../../commands/readiness';
import { AppError, ErrorCodes } from '../../common/errors';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Service';
const startedAt = Date.now();

const checkResult = z.object({ ok: z.boolean(), latency_ms: z.number(), error: z.string().optional() });
const readiness = z.object({ status: z.literal('ready'), checks: z.record(z.string(), checkResult) }).meta({ id: 'Readiness' });
const health = z.object({ status: z.literal('ok'), uptime_s: z.number().int() }).meta({ id: 'Health' });

// swagger-ui-dist ships the UI; only these files are served, so no path from the request reaches the disk.
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
  'favicon-32x32.png': 'image/png',
};
// Loaded on first use: the package's index also loads the UI bundle, which only browsers run.
const swaggerDir = async (): Promise<string> => (await import('swagger-ui-dist')).getAbsoluteFSPath();

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Orchestration Service API</title>
<link rel="stylesheet" href="/v1/docs/swagger-ui.css"><link rel="icon" href="/v1/docs/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/v1/docs/swagger-ui-bundle.js"></script><script src="/v1/docs/swagger-ui-standalone-preset.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });</script>
</body></html>`;

export const metaRoutes = (services: Services, openApiDocument: () => unknown) => [
  defineRoute({
    method: 'get',
    path: '/v1/health',
    operationId: 'health',
    tag,
    access: 'none',
    summary: 'Liveness: the process answers (no dependency is checked)',
    response: health,
    handler: () => ({ status: 'ok' as const, uptime_s: Math.floor((Date.now() - startedAt) / 1000) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ready',
    operationId: 'ready',
    tag,
    access: 'none',
    summary: 'Readiness: Temporal, MongoDB and Elasticsearch answer',
    description: 'HTTP 503 with code 20001 and `data.checks` naming each backend that does not answer.',
    response: readiness,
    otherErrors: { 503: 'not ready (20001): `data.down` names what does not answer; see Retry-After' },
    handler: async ({ ctx }) => {
      const checks = await services.commands.readiness();
      // This process's own needs decide; `checks.worker` reports the whole service's workers beside them.
      const down = PROCESS_BACKENDS.filter((name) => !checks[name].ok);
      if (down.length > 0) {
        ctx.set('Retry-After', '5');
        throw new AppError(ErrorCodes.INTERNAL, `not ready: ${down.join(', ')} unavailable`, { checks, down }, 503);
      }
      return { status: 'ready' as const, checks };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openapi',
    tag,
    access: 'none',
    summary: 'This OpenAPI 3 document',
    response: 'raw',
    handler: ({ ctx }) => {
      ctx.type = 'application/json';
      ctx.body = openApiDocument();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/docs',
    operationId: 'docs',
    tag,
    access: 'none',
    summary: 'Interactive API browser (Swagger UI)',
    response: 'raw',
    handler: ({ ctx }) => {
      ctx.type = 'text/html';
      ctx.body = DOCS_HTML;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/docs/{asset}',
    operationId: 'docsAsset',
    tag,
    access: 'none',
    summary: 'Swagger UI assets',
    response: 'raw',
    params: z.object({ asset: z.enum(Object.keys(SWAGGER_ASSETS) as [string, ...string[]]) }),
    handler: async ({ ctx, params }) => {
      ctx.type = SWAGGER_ASSETS[params.asset]!;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = await readFile(join(await swaggerDir(), params.asset));
    },
  }),
];
