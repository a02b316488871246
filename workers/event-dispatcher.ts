import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Logger } from '../common/logger';
import { startDelivery } from '../common/workflow-starts';
import { createEventLog, presentEvent } from '../stores/event-log';
import type { NewDelivery, WebhookStore } from '../stores/webhooks';
import { createPollLoop } from './poll-loop';

export interface DispatcherOptions {
  db: Db;
  webhooks: WebhookStore;
  client: Client;
  taskQueue: string;
  intervalMs: number;
  log: Logger;
  batchSize?: number;
}

/**
 * Turns every newly recorded event into one delivery workflow per matching subscription, then marks
 * the event dispatched. Safe to run in several worker processes at once: delivery ids and workflow
 * ids are derived from (event, subscription), so a pair is delivered once whoever gets there first.
 */
export function createEventDispatcher({ db, webhooks, client, taskQueue, intervalMs, log, batchSize = 200 }: DispatcherOptions) {
  const { dispatchQueue } = createEventLog(db);

  /**
   * One batch in the store's natural order (roughly oldest first); returns how many events it
   * handled. No sort: FerretDB v1 sorts by scanning, and every queued event is handled anyway.
   */
  async function dispatchOnce(): Promise<number> {
    const pending = await dispatchQueue.find({}).limit(batchSize).toArray();
    if (pending.length === 0) return 0;
    // One read of each tenant's enabled subscriptions serves the whole batch.
    const tenants = [...new Set(pending.map((e) => e.tenant_id))];
    const byTenant = new Map(
      await Promise.all(
        tenants.map(async (t) => [t, await webhooks.subscriptions.find({ tenant_id: t, enabled: true }).toArray()] as const),
      ),
    );
    const wanted: NewDelivery[] = pending.flatMap((doc) => {
      const envelope = presentEvent(doc);
      return (byTenant.get(doc.tenant_id) ?? [])
        .filter((s) => s.events.includes(doc.event) && s.created_at <= doc.timestamp)
        .map((s) => ({ tenantId: doc.tenant_id, subscriptionId: s._id, envelope }));
    });
    const ids = await webhooks.ensureDeliveries(wanted);
    await Promise.all(
      wanted.map((d, i) =>
        startDelivery(client, taskQueue, ids[i]!.workflowId, {
          deliveryId: ids[i]!.deliveryId,
          tenantId: d.tenantId,
          subscriptionId: d.subscriptionId,
          envelope: d.envelope,
        }),
      ),
    );
    // Dequeued only after every start went through: a crash before this line re-dispatches, harmlessly.
    await dispatchQueue.deleteMany({ _id: { $in: pending.map((q) => q._id) } });
    return pending.length;
  }

  return { dispatchOnce, ...createPollLoop('event dispatch', dispatchOnce, { intervalMs, batchSize, log }) };
}
