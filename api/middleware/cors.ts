import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from '../context';

/** What a browser client must be able to read; anything else it would never see. */
const EXPOSED = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Trace-Id',
  'X-Deprecated',
  'X-Deprecated-Sunset',
  'Idempotent-Replayed',
  'X-Combo-Session-Id',
  'X-Combo-Trace-Id',
];
const ALLOWED_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID', 'X-Combo-Session-Id'];

/**
 * Lets browser pages on the configured origins call the API (credentials are bearer tokens, never
 * cookies, so no `Allow-Credentials`). Mounted before authentication and rate limiting: a preflight
 * carries no credentials and must not be refused or counted, and errors keep the headers so the
 * page can read the envelope. With no origins configured no response carries CORS headers (nor
 * `Vary: Origin`, which only matters when they do): the middleware is left out.
 */
export function corsPolicy(origins: readonly string[]): Middleware<AppState> | undefined {
  if (origins.length === 0) return undefined;
  const allowed = new Set(origins);
  return cors({
    // An empty answer leaves the response without CORS headers: the browser blocks the page.
    origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowHeaders: ALLOWED_REQUEST_HEADERS,
    exposeHeaders: EXPOSED,
    maxAge: 600,
  }) as Middleware<AppState>;
}

/** Temporal's remote codec paths (routes/temporal-codec.ts). */
export const isCodecPath = (path: string) => path.startsWith('/v1/codec/');

/**
 * The codec endpoint's policy: only the Temporal UI's origin (TEMPORAL_UI_URL), with the headers
 * the UI sends (its namespace, the user's access token) and credentials allowed, since the UI may
 * be set to include them. Without TEMPORAL_UI_URL no browser may call it.
 */
export function codecCorsPolicy(temporalUiUrl: string | undefined): Middleware<AppState> | undefined {
  if (!temporalUiUrl) return undefined;
  const origin = new URL(temporalUiUrl).origin;
  return cors({
    origin: (ctx) => (ctx.get('Origin') === origin ? origin : ''),
    allowMethods: ['POST'],
    allowHeaders: ['Authorization', 'Content-Type', 'X-Namespace'],
    credentials: true,
    maxAge: 600,
  }) as Middleware<AppState>;
}
