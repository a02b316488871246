import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Logger } from '../common/logger';
import { startDelivery } from '../common/workflow-starts';
import { createEventLog, type EventDoc, presentEvent } from '../stores/event-log';
import type { WebhookStore } from '../stores/webhooks';

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
  const { events } = createEventLog(db);
  let stopped = false;
  let wake: (() => void) | undefined;

  async function dispatchEvent(doc: EventDoc, subscriptionsOf: (doc: EventDoc) => string[]): Promise<void> {
    const envelope = presentEvent(doc);
    await Promise.all(
      subscriptionsOf(doc).map(async (subscriptionId) => {
        const { deliveryId, workflowId } = await webhooks.ensureDelivery({ tenantId: doc.tenant_id, subscriptionId, envelope });
        await startDelivery(client, taskQueue, workflowId, { deliveryId, tenantId: doc.tenant_id, subscriptionId, envelope });
      }),
    );
    await events.updateOne({ _id: doc._id }, { $set: { dispatched_at: new Date() } });
  }

  /** One batch, oldest first; returns how many events it handled. */
  async function dispatchOnce(): Promise<number> {
    const pending = await events.find({ dispatched_at: null }).sort({ timestamp: 1, _id: 1 }).limit(batchSize).toArray();
    if (pending.length === 0) return 0;
    // One read of each tenant's enabled subscriptions serves the whole batch.
    const tenants = [...new Set(pending.map((e) => e.tenant_id))];
    const byTenant = new Map(
      await Promise.all(
        tenants.map(async (t) => [t, await webhooks.subscriptions.find({ tenant_id: t, enabled: true }).toArray()] as const),
      ),
    );
    const subscriptionsOf = (doc: EventDoc) =>
      (byTenant.get(doc.tenant_id) ?? [])
        .filter((s) => s.events.includes(doc.event) && s.created_at <= doc.timestamp)
        .map((s) => s._id);
    await Promise.all(pending.map((doc) => dispatchEvent(doc, subscriptionsOf)));
    return pending.length;
  }

  async function run(): Promise<void> {
    while (!stopped) {
      let handled = 0;
      try {
        handled = await dispatchOnce();
      } catch (err) {
        log.warn('event dispatch failed; retrying', { error: String(err) });
      }
      if (handled < batchSize && !stopped) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, intervalMs).unref();
        });
      }
    }
  }

  return {
    dispatchOnce,
    /** Runs until stop(); resolves when the loop has ended. */
    start: () => run(),
    stop() {
      stopped = true;
      wake?.();
    },
  };
}
