import type { Middleware } from 'koa';
import { AppError, ErrorCodes } from '../../common/errors';
import type { RateDecision, RateFamily, RateLimiter } from '../../stores/rate-limits';
import { INBOUND_CHANNELS } from '../../common/inbound-event';
import type { AppContext, AppState } from '../context';

/** POST /v1/webhook/{channel} and /v1/webhook/generic/{trigger_id}; group 1 is the trigger id. */
const INBOUND_PATH = new RegExp(`^/v1/webhook/(?:(?:${INBOUND_CHANNELS.join('|')})|generic/([A-Za-z0-9_]{1,80}))/?$`);
const INTEGRATION_ID = /^int_[A-Za-z0-9]{1,64}$/;

/**
 * The spec's endpoint families: completions 60/min (OpenAI-compatible chat completions too), file uploads 10/min, everything else 300/min;
 * plus inbound webhooks (RATE_LIMIT_INBOUND_PER_MIN), which carry no API key. A document's reparse
 * counts as an upload: the parse is the work that ceiling protects.
 */
export function rateFamilyOf(method: string, path: string): Exclude<RateFamily, 'inbound_refused'> {
  if (method === 'POST' && /^\/v1\/(?:combo\/agents\/[^/]+\/completions|openai\/chat\/completions)\/?$/.test(path)) return 'completions';
  if (method === 'POST' && /^\/v1\/(?:document|files|document\/[^/]+\/reparse)\/?$/.test(path)) return 'uploads';
  if (method === 'POST' && INBOUND_PATH.test(path)) return 'inbound';
  return 'default';
}

/** The integration (or, on the generic channel, the trigger) an inbound call names; undefined when neither. */
function inboundSubject(ctx: AppContext): string | undefined {
  const triggerId = INBOUND_PATH.exec(ctx.path)?.[1];
  if (triggerId) return `trigger:${triggerId}`;
  const named = ctx.query.integration_id ?? ctx.get('x-combo-integration');
  return typeof named === 'string' && INTEGRATION_ID.test(named) ? `integration:${named}` : undefined;
}

/** Puts the headers on the response; over the ceiling it is 429. */
function apply(ctx: AppContext, decision: RateDecision): void {
  ctx.set('X-RateLimit-Limit', String(decision.limit));
  ctx.set('X-RateLimit-Remaining', String(decision.remaining));
  ctx.set('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) {
    ctx.set('Retry-After', String(decision.retryAfter));
    throw new AppError(ErrorCodes.RATE_LIMITED, `rate limit of ${decision.limit} requests per minute exceeded`, {
      retry_after: decision.retryAfter,
    });
  }
}

/** Counts one request; the headers go on the response, and over the ceiling it is 429. */
async function enforce(ctx: AppContext, limiter: RateLimiter, key: string, family: RateFamily): Promise<void> {
  apply(ctx, await limiter.take(key, family));
}

/**
 * An inbound call is counted once its signature has been checked (cheap): a signed call against its
 * integration (or trigger), anything refused against (integration or trigger, client address). So
 * forged calls exhaust only their sender's own ceiling, never the one signed events count against.
 */
async function limitInbound(ctx: AppContext, limiter: RateLimiter, next: () => Promise<unknown>): Promise<void> {
  const subject = inboundSubject(ctx);
  let counted = false;
  const countRefused = () => enforce(ctx, limiter, `refused:${subject ?? '-'}:ip:${ctx.ip}`, 'inbound_refused');
  ctx.state.inboundVerified = async () => {
    counted = true;
    await enforce(ctx, limiter, subject ?? `ip:${ctx.ip}`, 'inbound');
  };
  try {
    await next();
  } catch (err) {
    if (!counted) await countRefused();
    throw err;
  }
  if (!counted) await countRefused();
}

/**
 * Counts every request (errors and unknown routes too) against the caller's API key or console
 * user; calls without valid credentials count against the client address. Headers go on every response.
 */
export function rateLimit(limiter: RateLimiter): Middleware<AppState> {
  // Not async: koa-compose turns a synchronous throw (a 429) into a rejected promise.
  return (ctx, next) => {
    const family = rateFamilyOf(ctx.method, ctx.path);
    if (family === 'inbound') return limitInbound(ctx, limiter, next);
    const decision = limiter.take(ctx.state.principal?.rateKey ?? `ip:${ctx.ip}`, family);
    if (decision instanceof Promise) {
      return decision.then((made) => {
        apply(ctx, made);
        return next();
      });
    }
    // Most decisions are made at once: no promise (and no turn of the event loop) for them.
    apply(ctx, decision);
    return next();
  };
}
