import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, ServiceError } from '@temporalio/client';

/**
 * When a wait on Temporal ends early: `signal` aborts when its caller leaves (the API aborts a
 * request's signal when its client's connection closes), `deadline` (epoch ms; Infinity: none) is
 * as long as the caller may wait.
 */
export interface WaitBounds {
  signal?: AbortSignal;
  deadline: number;
}

/**
 * Runs `calls` (Temporal client calls) so that their gRPC requests are cancelled at once when
 * `signal` aborts and fail with DEADLINE_EXCEEDED at `deadline`: a wait raced against a timer
 * instead would leave its losing call (a long-poll `result()`, an update) running until the run ends.
 * Rejects at once, calling nothing, when `signal` has aborted already.
 */
export function boundedCalls<T>(client: Client, { signal, deadline }: WaitBounds, calls: () => Promise<T>): Promise<T> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  // A signal of its own per wait: the SDK adds an abort listener to the signal for every gRPC
  // request and never removes it, so a long poll on the caller's own signal (a stream's, for hours)
  // would pile them up there; these go with this wait's signal.
  const scoped = signal ? () => client.withAbortSignal(AbortSignal.any([signal]), calls) : calls;
  return Number.isFinite(deadline) ? client.withDeadline(deadline, scoped) : scoped();
}

/** Sleeps `ms`, or less when `signal` aborts first (then it resolves: the caller checks the signal). */
export const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch((err: unknown) => {
    if (!signal?.aborted) throw err;
  });

/** gRPC codes a call fails with for the moment: UNKNOWN, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNAVAILABLE. */
const PASSING_GRPC_CODES = new Set([2, 8, 10, 13, 14]);

/**
 * Whether a Temporal client call failed for the moment (its server loaded or restarting): a loaded
 * server answers a history read so ("Failed to get Workflow execution history"), and a wait that
 * may still go on asks again rather than failing its request. Not found, refusals and deadlines are
 * not passing.
 */
export const isPassingTemporalError = (err: unknown): boolean =>
  err instanceof ServiceError && PASSING_GRPC_CODES.has((err.cause as { code?: unknown } | undefined)?.code as number);
