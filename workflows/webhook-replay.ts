import { continueAsNew, ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ReplayPageInput } from '../activities/webhooks';
import { EventId, SubscriptionId, TenantId, TraceId } from '../common/search-attributes';
import { webhookDeliveryWorkflow } from './webhook-delivery';

export type ReplayInput = Omit<ReplayPageInput, 'limit'> & { deliveriesStarted?: number };

const { prepareReplayPage } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
});

const PAGE_SIZE = 100;
const PAGES_PER_RUN = 10;

/**
 * Re-delivers a tenant's historical events in a time range with their original event ids, each
 * (event, subscription) pair as its own delivery workflow. Long replays continue as new runs so the
 * history stays small.
 */
export async function webhookReplayWorkflow(input: ReplayInput): Promise<{ deliveriesStarted: number }> {
  let { after } = input;
  let started = input.deliveriesStarted ?? 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const batch = await prepareReplayPage({ ...input, after, limit: PAGE_SIZE });
    await Promise.all(
      batch.deliveries.map(async (d) => {
        try {
          await startChild(webhookDeliveryWorkflow, {
            workflowId: d.workflowId,
            args: [{ deliveryId: d.deliveryId, tenantId: input.tenantId, subscriptionId: d.subscriptionId, envelope: d.envelope }],
            parentClosePolicy: ParentClosePolicy.ABANDON,
            typedSearchAttributes: [
              { key: TenantId, value: input.tenantId },
              { key: EventId, value: d.envelope.event_id },
              { key: SubscriptionId, value: d.subscriptionId },
              { key: TraceId, value: input.replayId },
            ],
          });
        } catch (err) {
          // A continued run may meet children it already started.
          if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
        }
      }),
    );
    started += batch.deliveries.length;
    if (!batch.next) return { deliveriesStarted: started };
    after = batch.next;
  }
  return continueAsNew<typeof webhookReplayWorkflow>({ ...input, after, deliveriesStarted: started });
}
