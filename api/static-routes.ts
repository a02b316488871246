import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from './context';

/**
 * The router, with the endpoints whose path has no parameters found by one lookup of method and
 * path: the router tests every route's pattern in turn and composes the matched layers again on
 * each request, which a CPU profile of a list call showed among its largest costs. An entry is
 * made only where the router itself would run exactly one middleware for that method and path
 * (one route, mounted as one middleware: api/route.ts), so the answer is the same; any other
 * request (a path with parameters, another spelling of a path, an unknown one) goes to the router.
 */
export function routerWithStaticLookup(router: Router<AppState>, paths: Iterable<string>): Middleware<AppState> {
  const dispatch = router.routes() as Middleware<AppState>;
  const table = new Map<string, Middleware<AppState>>();
  for (const path of new Set(paths)) {
    if (/[{:(*]/.test(path)) continue;
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE']) {
      const match = router.match(path, method);
      const [layer, ...others] = match.pathAndMethod;
      if (!match.route || !layer || others.length > 0 || layer.stack.length !== 1) continue;
      table.set(`${method} ${path}`, layer.stack[0] as Middleware<AppState>);
    }
  }
  return (ctx, next) => {
    const endpoint = table.get(`${ctx.method} ${ctx.path}`);
    if (!endpoint) return dispatch(ctx, next) as Promise<unknown>;
    // What the router gives a route without parameters.
    ctx.params = {};
    (ctx.request as { params?: unknown }).params = ctx.params;
    return endpoint(ctx, next) as Promise<unknown>;
  };
}
