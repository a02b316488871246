import type { Middleware } from 'koa';
import type { AppContext, AppState } from '../context';

/** Aborts when the client's connection closes before the response was sent whole. */
function connectionSignal(ctx: AppContext): AbortSignal {
  const controller = new AbortController();
  const leftEarly = () => !ctx.res.writableFinished;
  // The connection may have closed already, before the route first asked for the signal.
  if (ctx.res.closed) {
    if (leftEarly()) controller.abort(new Error('the client closed the connection'));
    return controller.signal;
  }
  // `close` comes after `finish` too (a response sent whole): only one that did not finish means the client left.
  ctx.res.once('close', () => {
    if (leftEarly()) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

/** A request's state, whose `signal` is made when first read (a getter on the class, not one defined on each request). */
class StateWithLazySignal {
  readonly #ctx: AppContext;
  #signal: AbortSignal | undefined;
  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }
  get signal(): AbortSignal {
    return (this.#signal ??= connectionSignal(this.#ctx));
  }
}

/**
 * Gives every request `ctx.state.signal`, which aborts when the client's connection closes before
 * the response has been sent: the waits a request started (a stream's wait on its run's end, a
 * JSON completion's wait for its reply, a decision's update) end with it, Temporal calls included.
 * Made when a route first reads it: most requests never wait on anything that needs it, and an
 * AbortController and a `close` listener on every request cost the hot paths measurably (so did
 * defining the getter on each request's state: a profile showed it among the middleware's costs).
 */
export function requestSignal(): Middleware<AppState> {
  return (ctx, next) => {
    ctx.state = Object.assign(new StateWithLazySignal(ctx), ctx.state);
    return next();
  };
}
