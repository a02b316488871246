import type { Middleware } from 'koa';
import { AppError, ErrorCodes } from '../../common/errors';
import type { RateFamily, RateLimiter } from '../../stores/rate-limits';
import { INBOUND_CHANNELS } from '../../triggers/inbound-event';
import type { AppContext, AppState } from '../context';

/** POST /v1/webhook/{channel} and /v1/webhook/generic/{trigger_id}; group 1 is the trigger id. */
const INBOUND_PATH = new RegExp(`^/v1/webhook/(?:(?:${INBOUND_CHANNELS.join('|')})|generic/([A-Za-z0-9_]{1,80}))/?$`);
const INTEGRATION_ID = /^int_[A-Za-z0-9]{1,64}$/;

/**
 * The spec's endpoint families: completions 60/min, file uploads 10/min, everything else 300/min;
 * plus inbound webhooks (RATE_LIMIT_INBOUND_PER_MIN), which carry no API key.
 */
export function rateFamilyOf(method: string, path: string): RateFamily {
  if (method === 'POST' && /^\/v1\/combo\/agents\/[^/]+\/completions\/?$/.test(path)) return 'completions';
  if (method === 'POST' && /^\/v1\/(?:document|files)\/?$/.test(path)) return 'uploads';
  if (method === 'POST' && INBOUND_PATH.test(path)) return 'inbound';
  return 'default';
}

/**
 * An inbound call counts against the trigger it names (generic) or the integration it names, before
 * its signature is checked; one naming neither counts against the client address.
 */
function inboundRateKey(ctx: AppContext): string | undefined {
  const triggerId = INBOUND_PATH.exec(ctx.path)?.[1];
  if (triggerId) return `trigger:${triggerId}`;
  const named = ctx.query.integration_id ?? ctx.get('x-combo-integration');
  return typeof named === 'string' && INTEGRATION_ID.test(named) ? `integration:${named}` : undefined;
}

/**
 * Counts every request (errors and unknown routes too) against the caller's API key or console
 * user; calls without valid credentials count against the client address. Headers go on every response.
 */
export function rateLimit(limiter: RateLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    const family = rateFamilyOf(ctx.method, ctx.path);
    const key = (family === 'inbound' ? inboundRateKey(ctx as AppContext) : ctx.state.principal?.rateKey) ?? `ip:${ctx.ip}`;
    const decision = await limiter.take(key, family);
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
