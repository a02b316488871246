import type { ParameterizedContext } from 'koa';
import type { Principal } from './auth';

/** What the global middleware leaves on every request. */
export interface AppState {
  traceId: string;
  principal?: Principal;
  /** Bad credentials are remembered, not thrown, so rate limiting and 404s still answer properly. */
  authError?: Error;
}

export type AppContext = ParameterizedContext<AppState>;
