import { Context } from '@temporalio/activity';

/** How often a long call tells Temporal it is alive; the worker sends at most one heartbeat per throttle interval. */
const BEAT_MS = 200;

/**
 * Runs a call that may wait a long time for an upstream (a model's first token, a tool's answer)
 * while heartbeating: a cancellation reaches an activity only through its heartbeats, and with
 * them the activity's cancellationSignal aborts the upstream request.
 */
export async function whileHeartbeating<T>(call: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const beat = setInterval(() => ctx.heartbeat(), BEAT_MS);
  try {
    return await call();
  } finally {
    clearInterval(beat);
  }
}
