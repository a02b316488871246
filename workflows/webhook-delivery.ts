import { ActivityFailure, ApplicationFailure, type LocalActivityOptions, patched, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { DeliveryEnvelope } from '../common/events';

/** The spec's schedule: attempt 1 at once, then 30 s, 2 min, 10 min and 1 h after each failure. */
const RETRY_DELAYS = ['30 seconds', '2 minutes', '10 minutes', '1 hour'] as const;
const MAX_ATTEMPTS = RETRY_DELAYS.length + 1;

export interface DeliveryInput {
  deliveryId: string;
  tenantId: string;
  subscriptionId: string;
  envelope: DeliveryEnvelope;
  /**
   * The four waits between attempts, in milliseconds (WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS, for tests
   * only); absent: the contract's schedule. Only the timers' lengths differ, not the commands, so
   * histories of either kind replay alike.
   */
  retryDelaysMs?: number[];
  /**
   * The attempt this workflow begins with, after the wait that precedes it: 2 when the dispatcher's
   * batch made the first attempt and it failed (the workflow then carries the retry schedule only).
   * Absent: 1, at once.
   */
  firstAttempt?: number;
}

export interface DeliveryOutcome {
  /** `dropped`: the subscription was deleted before the delivery succeeded. */
  status: 'delivered' | 'dead' | 'dropped';
  attempts: number;
}

// A failed local activity reaches the workflow as an ActivityFailure wrapping the activity's own
// failure, or (depending on the SDK path) as that ApplicationFailure itself: accept both.
const subscriptionGone = (err: unknown): boolean =>
  (err instanceof ApplicationFailure && err.type === 'SubscriptionGone') || (err instanceof ActivityFailure && subscriptionGone(err.cause));

// An attempt is short (a 2 s HTTP deadline and one write), so it runs as a local activity inside the
// workflow task: no extra round trip through the server per attempt. Its result is recorded in the
// history as a marker; the timers between attempts are ordinary durable timers. An HTTP failure is
// an answer, not an error: only infrastructure faults (the database) make it fail, and those are
// retried until they pass.
const LOCAL_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['SubscriptionGone'] },
};
const unbounded = proxyLocalActivities<Activities>(LOCAL_OPTIONS);
// ... though not forever: a database down for this long costs the attempt (it counts as failed, the
// schedule goes on) or, for the dead letter, ends the workflow as failed. So every path ends within
// the schedule (1 h 42.5 min of waits) plus six of these.
const INFRA_RETRY_BOUND = '10 minutes';
/** Backstop of a delivery's start (a workflow execution timeout): the schedule and those six waits end it well before. */
export const DELIVERY_BACKSTOP_MS = 3 * 3_600_000;
const bounded = proxyLocalActivities<Activities>({ ...LOCAL_OPTIONS, scheduleToCloseTimeout: INFRA_RETRY_BOUND });
/** Patch id of the bound on infrastructure retries. */
const INFRA_RETRY_PATCH = 'webhook-delivery-infra-retry-bound';

const failedAttempt = { ok: false } as const;

/** The waits of this delivery: the test schedule when it was given (four of them), else the contract's. */
const delaysOf = (input: DeliveryInput): ReadonlyArray<(typeof RETRY_DELAYS)[number] | number> =>
  input.retryDelaysMs?.length === RETRY_DELAYS.length ? input.retryDelaysMs : RETRY_DELAYS;

/** One (event, subscription) delivery. Timers are durable: a restart neither loses nor adds an attempt. */
export async function webhookDeliveryWorkflow(input: DeliveryInput): Promise<DeliveryOutcome> {
  // Runs started before the bound existed retried without end.
  const isBounded = patched(INFRA_RETRY_PATCH);
  const { attemptDelivery, deadLetter } = isBounded ? bounded : unbounded;
  const { retryDelaysMs: _retryDelaysMs, firstAttempt = 1, ...delivery } = input;
  const delays = delaysOf(input);
  // Input decides it, so histories started without the field replay as before.
  const waitBefore = firstAttempt > 1 ? delays[firstAttempt - 2] : undefined;
  if (waitBefore !== undefined) await sleep(waitBefore);
  for (let attempt = firstAttempt; attempt <= MAX_ATTEMPTS; attempt++) {
    let result: { ok: boolean };
    try {
      result = await attemptDelivery({ ...delivery, attempt });
    } catch (err) {
      if (subscriptionGone(err)) return { status: 'dropped', attempts: attempt - 1 };
      if (!isBounded) throw err;
      result = failedAttempt;
    }
    if (result.ok) return { status: 'delivered', attempts: attempt };
    const delay = delays[attempt - 1];
    if (delay !== undefined) await sleep(delay);
  }
  await deadLetter({ deliveryId: input.deliveryId });
  return { status: 'dead', attempts: MAX_ATTEMPTS };
}
