import type { Middleware } from 'koa';
import { AppError, ErrorCodes } from '../../common/errors';
import type { RateFamily, RateLimiter } from '../../stores/rate-limits';
import type { AppState } from '../context';

/** The spec's endpoint families: completions 60/min, file uploads 10/min, everything else 300/min. */
export function rateFamilyOf(method: string, path: string): RateFamily {
  if (method === 'POST' && /^\/v1\/combo\/agents\/[^/]+\/completions\/?$/.test(path)) return 'completions';
  if (method === 'POST' && /^\/v1\/(?:document|files)\/?$/.test(path)) return 'uploads';
  return 'default';
}

/**
 * Counts every request (errors and unknown routes too) against the caller's API key or console
 * user; calls without valid credentials count against the client address. Headers go on every response.
 */
export function rateLimit(limiter: RateLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    const key = ctx.state.principal?.rateKey ?? `ip:${ctx.ip}`;
    const decision = await limiter.take(key, rateFamilyOf(ctx.method, ctx.path));
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    ctx.set('X-RateLimit-Reset', String(decision.resetAt));
    if (!decision.allowed) {
      ctx.set('Retry-After', String(decision.retryAfter));
      throw new AppError(ErrorCodes.RATE_LIMITED, `rate limit of ${decision.limit} requests per minute exceeded`, {
        retry_after: decision.retryAfter,
      });
    }
    await next();
  };
}
