import type { Middleware } from 'koa';
import { newTraceId } from '../../common/ids';
import type { Authenticator } from '../auth';
import type { AppState } from '../context';

/** Gives every request a trace id and resolves its credentials (errors are kept for the route to raise). */
export function requestContext(auth: Authenticator): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.traceId = newTraceId();
    ctx.set('X-Trace-Id', ctx.state.traceId);
    try {
      ctx.state.principal = await auth.resolve(ctx.get('authorization') || undefined);
    } catch (err) {
      ctx.state.authError = err as Error;
    }
    await next();
  };
}
