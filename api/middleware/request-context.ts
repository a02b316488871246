import type { Middleware } from 'koa';
import { newTraceId } from '../../common/ids';
import type { Authenticator } from '../auth';
import type { AppState } from '../context';

/**
 * Gives every request a trace id and resolves its credentials (errors are kept for the route to
 * raise). Credentials resolved at once (a cached API key, none at all) go on without an await.
 */
export function requestContext(auth: Authenticator): Middleware<AppState> {
  return (ctx, next) => {
    ctx.state.traceId = newTraceId();
    ctx.set('X-Trace-Id', ctx.state.traceId);
    let resolved: ReturnType<Authenticator['resolve']>;
    try {
      resolved = auth.resolve(ctx.get('authorization') || undefined);
    } catch (err) {
      ctx.state.authError = err as Error;
      return next();
    }
    if (!(resolved instanceof Promise)) {
      ctx.state.principal = resolved;
      return next();
    }
    return resolved.then(
      (principal) => {
        ctx.state.principal = principal;
        return next();
      },
      (err: unknown) => {
        ctx.state.authError = err as Error;
        return next();
      },
    );
  };
}
