import { type Client, type WorkflowHandle, WorkflowNotFoundError } from '@temporalio/client';
import type { Config } from '../common/config';
import { conflict, notFound } from '../common/errors';
import { newId } from '../common/ids';
import type { ReplayBody, ReplayStarted } from '../common/schemas/webhooks';
import { TenantId } from '../common/search-attributes';
import { presentEvent, type EventLog } from '../stores/event-log';
import type { NewDelivery, WebhookStore } from '../stores/webhooks';
import { replayProgressQuery, type webhookReplayWorkflow } from '../workflows/webhook-replay';
import { replayWorkflowId } from '../common/workflow-ids';
import { makeFirstAttempts } from './webhook-first-attempts';
import { startDelivery, startReplay } from './workflow-starts';
import { taskQueueOf } from '../common/task-queues';

export interface WebhookDispatchDeps {
  temporal: Client;
  config: Config;
  webhooks: WebhookStore;
  eventLog: EventLog;
}

/** How long GET of a running replay waits for its count; a replay whose worker is busy or down answers null then. */
const PROGRESS_QUERY_WAIT_MS = 2_000;
/**
 * A batch starts no first attempt later than this before its claim may be taken over
 * (WEBHOOK_BATCH_TAKEOVER_MS after it): the attempt's 2 s consumer deadline and the write of its record.
 */
const TAKEOVER_MARGIN_MS = 5_000;

/**
 * Outbound webhooks: recorded events' first attempts in batches, then each (event, subscription) pair
 * that needs more by its own workflow; test events, dead-letter replays and historical replays by their workflow from the start.
 */
export function createWebhookDispatchCommands({ temporal, config, webhooks, eventLog }: WebhookDispatchDeps) {
  /** A running replay's deliveries started so far (a query of its workflow); null when it does not answer in time. */
  const startedSoFar = (handle: WorkflowHandle<typeof webhookReplayWorkflow>): Promise<number | null> =>
    temporal
      .withDeadline(Date.now() + PROGRESS_QUERY_WAIT_MS, () => handle.query(replayProgressQuery))
      .then((p) => p.deliveriesStarted)
      .catch(() => null);

  // Deliveries and replays (whose deliveries start on the replay's own queue) on the delivery queue.
  const taskQueue = taskQueueOf(config, 'deliveries');
  /** FOR TESTS ONLY: deliveries started while WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS is set wait these between attempts. */
  const retrySchedule = config.WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS ? { retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS } : {};

  async function deliver(deliveries: NewDelivery[], traceId?: string): Promise<string[]> {
    const ids = await webhooks.ensureDeliveries(deliveries);
    await Promise.all(
      deliveries.map((d, i) =>
        startDelivery(
          temporal,
          taskQueue,
          ids[i]!.workflowId,
          {
            deliveryId: ids[i]!.deliveryId,
            tenantId: d.tenantId,
            subscriptionId: d.subscriptionId,
            envelope: d.envelope,
            ...retrySchedule,
          },
          traceId,
        ),
      ),
    );
    return ids.map((id) => id.deliveryId);
  }

  /** The delivery workflow of a pair, from `firstAttempt` on (1: at once; n > 1: after the wait before attempt n). */
  const startRetries = (d: { deliveryId: string; workflowId: string } & NewDelivery, firstAttempt: number) =>
    startDelivery(temporal, taskQueue, d.workflowId, {
      deliveryId: d.deliveryId,
      tenantId: d.tenantId,
      subscriptionId: d.subscriptionId,
      envelope: d.envelope,
      ...(firstAttempt > 1 ? { firstAttempt } : {}),
      ...retrySchedule,
    });

  /**
   * What a pair this round did not claim (another dispatcher did, or this one before a crash), or
   * whose delivery is recorded already, still needs: nothing, its workflow from attempt n on (its
   * record written first, if missing), or a later look while its claimer may still be at it.
   */
  function settleClaimed(
    record: { status: string; attemptCount: number; createdAt: Date } | undefined,
    claimedAt: Date | undefined,
  ): 'done' | 'wait' | number {
    const takenOverAfter = (since: Date) => Date.now() - since.getTime() > config.WEBHOOK_BATCH_TAKEOVER_MS;
    if (!record) {
      // Neither record nor claim: recorded and purged since (retention).
      if (!claimedAt) return 'done';
      return takenOverAfter(claimedAt) ? 1 : 'wait';
    }
    if (record.status !== 'pending') return 'done';
    // Its first attempt failed: the schedule goes on in its workflow (started already, most often: then nothing changes).
    if (record.attemptCount > 0) return record.attemptCount + 1;
    // Recorded without an attempt (handed to its workflow, or by an earlier version): its workflow's, started at once most often.
    return takenOverAfter(record.createdAt) ? 1 : 'wait';
  }

  /** Since when this dispatcher has found each pair of a queued event claimed by another claimer (or by itself earlier). */
  const claimedSince = new Map<string, number>();

  /** Records one delivery and starts it at once (a test event, a dead letter sent again); returns it as recorded. */
  async function deliverNow(d: NewDelivery, traceId: string) {
    const [id] = await deliver([d], traceId);
    return webhooks.getDelivery(d.tenantId, id!);
  }

  return {
    deliverNow,

    /** A `webhook.test` event to one subscription of the tenant (10004 for another's), on the usual schedule. */
    async sendTest(tenantId: string, subscriptionId: string, traceId: string) {
      await webhooks.getSubscription(tenantId, subscriptionId);
      const envelope = {
        event: 'webhook.test' as const,
        event_id: newId('evt'),
        timestamp: new Date().toISOString(),
        tenant_id: tenantId,
        data: { subscription_id: subscriptionId, message: 'test delivery' },
      };
      return deliverNow({ tenantId, subscriptionId, envelope }, traceId);
    },

    /**
     * Sends a dead letter again: a new delivery of its event to its subscription, with a fresh schedule (the same
     * delivery for the same letter, however often asked), and marks the letter `replayed_by` it.
     */
    async replayDeadLetter(tenantId: string, deliveryId: string, traceId: string) {
      const dead = await webhooks.getDeliveryDoc(tenantId, deliveryId);
      if (dead.status !== 'dead')
        throw conflict(`delivery ${dead._id} is ${dead.status}, not in the dead-letter queue`, { status: dead.status });
      await webhooks.getSubscription(tenantId, dead.subscription_id);
      const [replayId] = await deliver(
        [{ tenantId, subscriptionId: dead.subscription_id, envelope: dead.envelope, replayOf: dead._id }],
        traceId,
      );
      await webhooks.markReplayed(tenantId, dead._id, replayId!);
      return webhooks.getDelivery(tenantId, replayId!);
    },

    /**
     * Delivers up to `batchSize` newly recorded events to every matching subscription, then marks
     * them dispatched; returns how many events it handled. Each (event, subscription) pair's record
     * is claimed by inserting it (the store's unique id: one process wins): the winner makes the
     * first attempt in this batch, and a failed one goes on in the pair's delivery workflow, which
     * carries the retry schedule. A pair found claimed already is settled from its record: retries
     * handed to its workflow, or, claimed longer than WEBHOOK_BATCH_TAKEOVER_MS ago without an attempt (its
     * dispatcher died mid-batch), taken over by its workflow from the first attempt. An event whose
     * pairs are claimed by a dispatcher still at work stays queued for a later round.
     */
    async dispatchRecorded(batchSize: number): Promise<number> {
      const pending = await eventLog.undispatched(batchSize);
      if (pending.length === 0) return 0;
      // One read of each tenant's enabled subscriptions serves the whole batch.
      const byTenant = await webhooks.enabledByTenant([...new Set(pending.map((e) => e.tenant_id))]);
      const wanted = pending.flatMap((doc) => {
        const envelope = presentEvent(doc);
        return (byTenant.get(doc.tenant_id) ?? [])
          .filter((s) => s.events.includes(doc.event) && s.createdAt <= doc.timestamp)
          .map((s) => ({ eventId: doc._id, delivery: { tenantId: doc.tenant_id, subscriptionId: s.id, envelope } }));
      });
      // Taken before the claims' created_at: this batch starts no attempt once another dispatcher may take them over.
      const claimedAt = Date.now();
      const claims = await webhooks.claimDeliveries(wanted.map((w) => w.delivery));
      const pairs = wanted.map((w, i) => ({ eventId: w.eventId, ...w.delivery, ...claims[i]! }));
      const fresh = pairs.filter((p) => p.created);
      // A pair claimed before (by another dispatcher, or by this one before a crash or a failed round) is left to its
      // claimer until this dispatcher has seen it claimed for WEBHOOK_BATCH_TAKEOVER_MS; only then are its record and
      // claim read (FerretDB scans for a list of ids): a live claimer has settled it by then.
      const claimedBefore = pairs.filter((p) => !p.created);
      const now = Date.now();
      // Pairs of this round only: those of events dispatched meanwhile (by their claimer) are forgotten.
      const seen = new Set(claimedBefore.map((p) => p.deliveryId));
      for (const id of claimedSince.keys()) if (!seen.has(id)) claimedSince.delete(id);
      for (const p of claimedBefore) if (!claimedSince.has(p.deliveryId)) claimedSince.set(p.deliveryId, now);
      const overdue = claimedBefore.filter((p) => now - claimedSince.get(p.deliveryId)! > config.WEBHOOK_BATCH_TAKEOVER_MS);
      const overdueIds = new Set(overdue.map((p) => p.deliveryId));
      const records = await webhooks.deliveriesProgress([...overdueIds]);
      const claimTimes = await webhooks.claimTimes(overdue.filter((p) => !records.has(p.deliveryId)).map((p) => p.deliveryId));
      const unsettled = new Set<string>();
      const handedOver = claimedBefore.flatMap((p) => {
        const step = overdueIds.has(p.deliveryId) ? settleClaimed(records.get(p.deliveryId), claimTimes.get(p.deliveryId)) : 'wait';
        if (step === 'wait') unsettled.add(p.eventId);
        return typeof step === 'number' ? [{ ...p, firstAttempt: step }] : [];
      });
      const takeOver = async () => {
        await webhooks.ensureDeliveries(handedOver);
        await Promise.all(handedOver.map((d) => startRetries(d, d.firstAttempt)));
      };
      const [attempted, takenOver] = await Promise.allSettled([
        makeFirstAttempts(fresh, {
          webhooks,
          allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
          startBy: claimedAt + config.WEBHOOK_BATCH_TAKEOVER_MS - TAKEOVER_MARGIN_MS,
          // Started as soon as the failure is logged, so attempt 2 comes 30 s after attempt 1, not after the whole batch.
          onFailed: (d) => startRetries(d, 2).then(() => undefined),
        }),
        takeOver(),
      ]);
      if (attempted.status === 'rejected') throw attempted.reason;
      if (takenOver.status === 'rejected') throw takenOver.reason;
      const { unstarted, dropped } = attempted.value;
      // Recorded without an attempt: those of a deleted subscription (as a delivery workflow leaves them), and those
      // not attempted before the claim could be taken over, whose workflows make the first attempt.
      await webhooks.ensureDeliveries([...unstarted, ...dropped]);
      await Promise.all(unstarted.map((d) => startRetries(d, 1)));
      // Dequeued only once every pair is settled: a crash before this line dispatches the events again (see above).
      const settled = pending.filter((e) => !unsettled.has(e._id));
      await eventLog.markDispatched(settled.map((q) => q._id));
      for (const p of claimedBefore) if (!unsettled.has(p.eventId)) claimedSince.delete(p.deliveryId);
      return settled.length;
    },

    /** Re-delivers the tenant's recorded events in a time range, as a workflow (WEBHOOK_REPLAY_TIMEOUT_MS). */
    async startReplay(tenantId: string, body: ReplayBody): Promise<ReplayStarted> {
      if (body.subscription_id) await webhooks.getSubscription(tenantId, body.subscription_id);
      const replayId = newId('rpl');
      const workflowId = await startReplay(temporal, taskQueue, {
        replayId,
        tenantId,
        since: body.since,
        until: body.until,
        events: body.events,
        subscriptionId: body.subscription_id,
        timeoutMs: config.WEBHOOK_REPLAY_TIMEOUT_MS,
        ...retrySchedule,
      });
      return { replay_id: replayId, workflow_id: workflowId, status: 'running', deliveries_started: null };
    },

    /** A replay's progress; another tenant's replay does not exist for the caller. */
    async replayStatus(tenantId: string, replayId: string): Promise<ReplayStarted> {
      const workflowId = replayWorkflowId(replayId);
      const handle = temporal.workflow.getHandle<typeof webhookReplayWorkflow>(workflowId);
      let described;
      try {
        described = await handle.describe();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw notFound('replay', replayId);
        throw err;
      }
      if (described.typedSearchAttributes.get(TenantId) !== tenantId) throw notFound('replay', replayId);
      const base = { replay_id: replayId, workflow_id: workflowId };
      if (described.status.name === 'RUNNING' || described.status.name === 'CONTINUED_AS_NEW')
        return { ...base, status: 'running', deliveries_started: await startedSoFar(handle) };
      if (described.status.name !== 'COMPLETED') return { ...base, status: 'failed', deliveries_started: null };
      const result = await handle.result();
      return { ...base, status: 'completed', deliveries_started: result.deliveriesStarted };
    },
  };
}
