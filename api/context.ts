import type { ParameterizedContext } from 'koa';
import type { Principal } from './auth';

/** What the global middleware leaves on every request. */
export interface AppState {
  traceId: string;
  /** Aborts when the client's connection closes before its response was sent (middleware/request-signal.ts). */
  signal: AbortSignal;
  principal?: Principal;
  /** Bad credentials are remembered, not thrown, so rate limiting and 404s still answer properly. */
  authError?: Error;
  /** Set by a route before its body is read: the authorized caller, the parsed path and query, the Idempotency-Key of a POST. */
  checked?: { principal: Principal | undefined; params: unknown; query: unknown; idempotencyKey: string | undefined };
  /** The body's bytes exactly as received, on routes declaring `rawBody`. */
  rawBody?: Buffer;
  /**
   * Set by the rate limiter on inbound webhook calls: the handler calls it once the signature
   * holds, so the call counts against its integration (or trigger), not as a refused call.
   */
  inboundVerified?: () => Promise<void>;
}

export type AppContext = ParameterizedContext<AppState>;
