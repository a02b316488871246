import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import type { AppState } from '../context';

/**
 * Reads the body as the bytes that came over the wire: not decoded, not inflated. Inbound webhook
 * signatures are computed over exactly these bytes, so any transformation before the check would
 * break signatures of compressed or non-UTF-8 bodies. An over-long body fails with raw-body's
 * `entity.too.large`, which the error middleware turns into 10001.
 */
export function rawBytesBody(limit: number): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.rawBody = await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined });
    await next();
  };
}
