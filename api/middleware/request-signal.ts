import type { Middleware } from 'koa';
import type { AppState } from '../context';

/**
 * Gives every request `ctx.state.signal`, which aborts when the client's connection closes before
 * the response has been sent: the waits a request started (a stream's wait on its run's end, a
 * JSON completion's wait for its reply, a decision's update) end with it, Temporal calls included.
 */
export function requestSignal(): Middleware<AppState> {
  return async (ctx, next) => {
    const controller = new AbortController();
    ctx.state.signal = controller.signal;
    // `close` comes after `finish` too (a response sent whole): only one that did not finish means the client left.
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    await next();
  };
}
