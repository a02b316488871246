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
