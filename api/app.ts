import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { AppError, ErrorCodes } from '../common/errors';
import { consoleAssets } from './console';
import type { AppState } from './context';
import { errorEnvelope } from './middleware/errors';
import { rateLimit } from './middleware/rate-limit';
import { rawBytesBody } from './middleware/raw-body';
import { uploadBody } from './middleware/upload-body';
import { requestContext } from './middleware/request-context';
import { requestSignal } from './middleware/request-signal';
import { codecCorsPolicy, corsPolicy, isCodecPath } from './middleware/cors';
import { createIdempotencyGuard } from './idempotency';
import { buildOpenApiDocument } from './openapi';
import { type AnyRoute, mountRoute } from './route';
import { routerWithStaticLookup } from './static-routes';
import { agentRoutes } from './routes/agents';
import { completionRoutes } from './routes/completions';
import { openAiRoutes } from './routes/openai';
import { mcpRoutes } from './routes/mcp';
import { mcpAuthChallenge } from './mcp-oauth';
import { createEventStreamDeps } from './run-event-stream';
import { costRoutes } from './routes/costs';
import { temporalCodecRoutes } from './routes/temporal-codec';
import { fileRoutes } from './routes/files';
import { apiKeyRoutes } from './routes/api-keys';
import { authRoutes } from './routes/auth';
import { catalogRoutes } from './routes/catalog';
import { eventRoutes } from './routes/events';
import { knowledgeRoutes } from './routes/knowledge';
import { metaRoutes } from './routes/meta';
import { sessionRoutes } from './routes/sessions';
import { skillRoutes } from './routes/skills';
import { webhookRoutes } from './routes/webhooks';
import { integrationRoutes } from './routes/integrations';
import { modelProviderRoutes } from './routes/model-providers';
import { inboundWebhookRoutes } from './routes/inbound-webhooks';
import { cronRoutes } from './routes/cron';
import { triggerRoutes } from './routes/triggers';
import type { Services } from './services';

/** `consoleDir`: the built operator console served at /console (default: dist/console of the checkout or production tree). */
export function createApp(services: Services, { consoleDir }: { consoleDir?: string } = {}): Koa<AppState> {
  let openApi: unknown;
  const streams = createEventStreamDeps(services);
  const routes: AnyRoute[] = [
    ...agentRoutes(services),
    ...sessionRoutes(services),
    ...completionRoutes(services, streams),
    ...openAiRoutes(services, streams),
    ...mcpRoutes(services),
    ...catalogRoutes(services),
    ...authRoutes(services),
    ...apiKeyRoutes(services),
    ...eventRoutes(services),
    ...webhookRoutes(services),
    // After the outbound routes: the static /v1/webhook/subscriptions and /v1/webhook/replays win over /v1/webhook/{channel}.
    ...inboundWebhookRoutes(services),
    ...integrationRoutes(services),
    ...modelProviderRoutes(services),
    ...cronRoutes(services),
    ...triggerRoutes(services),
    ...knowledgeRoutes(services),
    ...skillRoutes(services),
    ...fileRoutes(services),
    ...costRoutes(services),
    ...temporalCodecRoutes(services),
    ...metaRoutes(services, () => (openApi ??= buildOpenApiDocument(routes))),
  ];

  const jsonOptions = {
    json: true,
    jsonStrict: true,
    jsonLimit: services.config.MAX_JSON_BODY_BYTES,
    text: false,
    urlencoded: false,
    multipart: false,
  };
  const jsonBody = koaBody(jsonOptions);
  const router = new Router<AppState>();
  const bodyParsers = {
    json: jsonBody,
    rawBytes: rawBytesBody(services.config.MAX_JSON_BODY_BYTES),
    multipart: uploadBody(services.config.MAX_UPLOAD_BYTES),
  };
  const idempotency = createIdempotencyGuard({ keys: services.idempotencyKeys, log: services.log });
  for (const route of routes) mountRoute(router, route, { bodyParsers, idempotency });

  // X-Forwarded-For decides the client address (rate limits of unauthenticated and inbound calls)
  // only behind a configured number of proxies: each appends the address it saw, so the entry that
  // many places from the right is the one no client can forge.
  const proxyHops = services.config.TRUSTED_PROXY_HOPS;
  const app = new Koa<AppState>({ proxy: proxyHops > 0, maxIpsCount: proxyHops });
  // A client that leaves a stream early is routine, not an error worth a stack trace.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET') return;
    services.log.error('response failed', { error: String(err.stack ?? err) });
  });
  const cors = corsPolicy(services.config.CORS_ORIGINS);
  const codecCors = codecCorsPolicy(services.config.TEMPORAL_UI_URL);
  // The codec endpoint answers the Temporal UI's origin only; every other path the configured origins.
  app.use((ctx, next) => {
    const policy = isCodecPath(ctx.path) ? codecCors : cors;
    return policy ? (policy(ctx, next) as Promise<void>) : next();
  });
  app.use(requestSignal());
  app.use(requestContext(services.auth));
  app.use(errorEnvelope(services.log, services.config.MAX_JSON_BODY_BYTES));
  // With an identity provider configured, a 401 on /v1/mcp points MCP hosts to its metadata.
  const mcpChallenge = mcpAuthChallenge(services.config);
  if (mcpChallenge) app.use(mcpChallenge);
  // Static files of the console: not API calls, so not counted against the rate limits.
  app.use(consoleAssets(consoleDir));
  app.use(rateLimit(services.rateLimiter));
  app.use(
    routerWithStaticLookup(
      router,
      routes.map((route) => route.path),
    ),
  );
  // Anything the router did not answer: an unknown path, or a known path with another method.
  // Not async: koa-compose turns a synchronous throw into a rejected promise.
  app.use((ctx) => {
    const match = router.match(ctx.path, ctx.method);
    if (match.path.length > 0 && !match.route) {
      const allowed = [...new Set(match.path.flatMap((layer) => layer.methods))].filter((m) => m !== 'HEAD');
      ctx.set('Allow', allowed.join(', '));
      throw new AppError(ErrorCodes.NOT_FOUND, `${ctx.method} is not supported on ${ctx.path}; use ${allowed.join(', ')}`);
    }
    throw new AppError(ErrorCodes.NOT_FOUND, `no endpoint ${ctx.method} ${ctx.path}`);
  });
  return app;
}
