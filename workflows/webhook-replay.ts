import {
  type ActivityOptions,
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  defineQuery,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReplayPageInput } from '../activities/webhooks';
import { deliverySearchAttributes } from '../common/search-attributes';
import { DELIVERY_BACKSTOP_MS, webhookDeliveryWorkflow } from './webhook-delivery';
import { ownTimeBoundReached } from './own-time-bound';

export type ReplayInput = Omit<ReplayPageInput, 'limit'> & {
  deliveriesStarted?: number;
  /** WEBHOOK_REPLAY_TIMEOUT_MS, the whole replay's bound; absent in replays started before it existed. */
  timeoutMs?: number;
  /** Epoch ms the replay ends at, set by its first run and carried to the runs it continues as. */
  deadline?: number;
  /** FOR TESTS ONLY: the waits between attempts of the deliveries it starts (see DeliveryInput); absent: the contract's. */
  retryDelaysMs?: number[];
};

const PAGE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
};
const unboundedPages = proxyActivities<Activities>(PAGE_OPTIONS);
/** A page the database cannot serve for this long fails the replay: so a run of PAGES_PER_RUN pages ends within 100 minutes. */
export const PAGE_BOUND_MS = 600_000;
const boundedPages = proxyActivities<Activities>({ ...PAGE_OPTIONS, scheduleToCloseTimeout: PAGE_BOUND_MS });
/** Patch id of the replay's own time bounds. */
const REPLAY_TIME_BOUND = 'webhook-replay-time-bound';
const REPLAY_TIMED_OUT = 'ReplayTimedOut';

/** Deliveries started so far, all runs of the replay together: its progress while it runs. */
export const replayProgressQuery = defineQuery<{ deliveriesStarted: number }>('replayProgress');

const PAGE_SIZE = 100;
export const PAGES_PER_RUN = 10;

/**
 * Re-delivers a tenant's historical events in a time range with their original event ids, each
 * (event, subscription) pair as its own delivery workflow. Long replays continue as new runs so the
 * history stays small.
 */
export async function webhookReplayWorkflow(input: ReplayInput): Promise<{ deliveriesStarted: number }> {
  // Replays started before the bounds existed have neither timer nor page bound in their history.
  const deadline =
    input.timeoutMs !== undefined && patched(REPLAY_TIME_BOUND) ? (input.deadline ?? Date.now() + input.timeoutMs) : undefined;
  const { prepareReplayPage } = deadline !== undefined ? boundedPages : unboundedPages;
  let { after } = input;
  let started = input.deliveriesStarted ?? 0;
  // A query adds nothing to the history: replays started before it simply gain it on their next task.
  setHandler(replayProgressQuery, () => ({ deliveriesStarted: started }));
  const run = async (): Promise<{ done: boolean }> => {
    for (let page = 0; page < PAGES_PER_RUN; page++) {
      const batch = await prepareReplayPage({ ...input, after, limit: PAGE_SIZE });
      await Promise.all(
        batch.deliveries.map(async (d) => {
          try {
            await startChild(webhookDeliveryWorkflow, {
              workflowId: d.workflowId,
              args: [
                {
                  deliveryId: d.deliveryId,
                  tenantId: input.tenantId,
                  subscriptionId: d.subscriptionId,
                  envelope: d.envelope,
                  ...(input.retryDelaysMs ? { retryDelaysMs: input.retryDelaysMs } : {}),
                },
              ],
              parentClosePolicy: ParentClosePolicy.ABANDON,
              // The same backstop as a delivery started by the dispatcher (DELIVERY_BACKSTOP_MS).
              ...(deadline !== undefined ? { workflowExecutionTimeout: DELIVERY_BACKSTOP_MS } : {}),
              typedSearchAttributes: deliverySearchAttributes({
                tenantId: input.tenantId,
                eventId: d.envelope.event_id,
                subscriptionId: d.subscriptionId,
                traceId: input.replayId,
              }),
            });
          } catch (err) {
            // A continued run may meet children it already started.
            if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
          }
        }),
      );
      started += batch.deliveries.length;
      if (!batch.next) return { done: true };
      after = batch.next;
    }
    return { done: false };
  };
  let outcome;
  try {
    outcome = deadline !== undefined ? await CancellationScope.withTimeout(Math.max(1, deadline - Date.now()), run) : await run();
  } catch (err) {
    if (deadline !== undefined && ownTimeBoundReached(err)) {
      // The replay's record is its workflow: it fails saying how far it got; deliveries started stay started.
      throw ApplicationFailure.create({
        message: `the replay did not finish within its time bound (${input.timeoutMs} ms): ${started} deliveries started`,
        type: REPLAY_TIMED_OUT,
        nonRetryable: true,
        details: [{ deliveriesStarted: started, after: after ?? null }],
      });
    }
    throw err;
  }
  if (outcome.done) return { deliveriesStarted: started };
  return continueAsNew<typeof webhookReplayWorkflow>({
    ...input,
    after,
    deliveriesStarted: started,
    ...(deadline !== undefined ? { deadline } : {}),
  });
}
