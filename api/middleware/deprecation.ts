import type { AppContext } from '../context';

/** The spec's versioning rule 3: deprecated interfaces announce themselves and their sunset date. */
export function deprecationHeaders(ctx: AppContext, sunset: string): void {
  ctx.set('X-Deprecated', 'true');
  ctx.set('X-Deprecated-Sunset', sunset);
}
