import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { ingestWorkflowId } from '../../common/workflow-ids';
import { createEventLog } from '../../stores/event-log';
import { allTaskQueues, taskQueueOf } from '../../common/task-queues';
import { startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, startConsumer } from '../support/consumer';
import { settledDocument } from '../support/documents';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';
import { killProcess, spawnWorkerProcess } from '../support/worker-process';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

// Temporal's enum values (temporal.api.enums.v1): TASK_QUEUE_KIND_NORMAL, TASK_QUEUE_TYPE_WORKFLOW / _ACTIVITY.
const NORMAL_QUEUE = 1;
const WORKFLOW_TASKS = 1;
const ACTIVITY_TASKS = 2;

/** Whether some worker polls the workflow and the activity tasks of a queue (Temporal's DescribeTaskQueue). */
async function polled(temporal: Client, taskQueue: string): Promise<boolean> {
  for (const taskQueueType of [WORKFLOW_TASKS, ACTIVITY_TASKS]) {
    const { pollers } = await temporal.workflowService.describeTaskQueue({
      namespace: temporal.options.namespace,
      taskQueue: { name: taskQueue, kind: NORMAL_QUEUE },
      taskQueueType,
    });
    if ((pollers ?? []).length === 0) return false;
  }
  return true;
}

/** Bound of the waits for a parse or a delivery to end: generous, for a machine where every core is busy. */
const SETTLED_BOUND_MS = 180_000;
/** Each test's bound: a worker's start and a few of those waits. */
const TEST_BOUND_MS = 600_000;

const licence = () => readFileSync(join(__dirname, '..', 'fixtures', 'texts', 'GPL-3'));

describe('interactive work on its own task queue', () => {
  const model = new ScriptedUpstream();
  let modelUrl: string;
  let consumer: Consumer;
  beforeAll(async () => {
    modelUrl = await model.start();
    model.reply = () => ({ body: chatAnswer('Here at once.') });
    consumer = await startConsumer();
  });
  afterAll(async () => {
    await consumer?.close();
    await model.stop();
  });

  describe('with no worker on the ingest and delivery queues', () => {
    let api: TestApi;
    let interactive: Worker | undefined;
    let bulk: Worker | undefined;
    beforeAll(async () => {
      api = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    });
    afterAll(async () => {
      await interactive?.stop();
      await bulk?.stop();
      await api?.close();
    });

    it(
      'answers completions while uploads and deliveries wait, and readiness names the queue nobody polls',
      async () => {
        // The webhook dispatcher runs as in the worker process: only where the delivery queue is polled, so not here.
        interactive = await startTestWorker(api, { config: { WORKER_TASK_QUEUES: ['interactive'] } });
        const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, body });

        // Bulk work waits on its own queues: a parse and a delivery, started before the completion.
        const kb = (await call('POST', '/v1/kb', { name: 'bulk' })).json.data;
        const upload = await api.upload(
          '/v1/document',
          api.adminKey,
          { kb_id: kb.kb_id, parser_id: 'naive' },
          { name: 'GPL-3.txt', bytes: licence() },
        );
        const docId = upload.json.data.doc_id as string;
        const parse = await api.services.temporal.workflow.getHandle(ingestWorkflowId(docId, 1)).describe();
        expect(parse.taskQueue).toBe(taskQueueOf(api.config, 'ingest'));
        const subscription = (await call('POST', '/v1/webhook/subscriptions', { url: consumer.url, events: ['session.created'] })).json
          .data;
        const delivery = (await call('POST', `/v1/webhook/subscriptions/${subscription.subscription_id}/test`)).json.data;

        const agentId = (await call('POST', '/v1/combo/agents', { name: 'Prompt' })).json.data.agent_id;
        const sessionId = (await call('POST', `/v1/combo/agents/${agentId}/sessions`, {})).json.data.session_id;
        const answered = await call('POST', `/v1/combo/agents/${agentId}/completions`, { session_id: sessionId, question: 'Still there?' });
        expect(answered.status).toBe(200);
        expect(answered.json.data.answer).toBe('Here at once.');
        expect((await call('GET', `/v1/document/${docId}`)).json.data.status).toBe('parsing');
        expect(consumer.received).toHaveLength(0);
        // The session's session.created event waits for a dispatcher: no first attempt in the interactive worker's batches.
        // (Recorded from the session's outbox: it may reach the log a moment after the session's answer.)
        const created = await eventually(async () => {
          const queued = await createEventLog(api.services.mongo.db).undispatched(1_000);
          return queued.find((e) => e.event === 'session.created' && e.data.session_id === sessionId);
        }, SETTLED_BOUND_MS);
        expect(await api.services.mongo.db.collection('webhook_deliveries').countDocuments({ event_id: created._id })).toBe(0);

        // The API process stays ready (its own backends answer); the service's view names each queue without a worker.
        const serviceView = await call('GET', '/v1/ready');
        expect(serviceView.status).toBe(200);
        expect(serviceView.json.data.checks.worker.ok).toBe(false);
        const unpolled = (group: 'interactive' | 'ingest' | 'deliveries') =>
          new RegExp(`task queue ${taskQueueOf(api.config, group)}(;|$)`).test(serviceView.json.data.checks.worker.error);
        expect([unpolled('interactive'), unpolled('ingest'), unpolled('deliveries')]).toEqual([false, true, true]);

        // A worker for the bulk queues only: the waiting work runs, and every queue is polled.
        bulk = await startTestWorker(api, { config: { WORKER_TASK_QUEUES: ['ingest', 'deliveries'] } });
        expect((await settledDocument(api, docId, SETTLED_BOUND_MS)).status).toBe('ready');
        // The test event (its workflow on the delivery queue) and the session's event (the bulk worker's dispatcher).
        const received = await consumer.waitFor(2, SETTLED_BOUND_MS);
        expect(received.map((r) => r.json.event_id as string).sort()).toEqual([delivery.event_id, created._id].sort());
        await eventually(async () => {
          const res = await call('GET', '/v1/ready');
          return res.json.data.checks.worker.ok === true ? res : undefined;
        }, SETTLED_BOUND_MS);
        consumer.received.length = 0;
      },
      TEST_BOUND_MS,
    );
  });

  it(
    'runs parses and deliveries started on the interactive queue before it was split off',
    async () => {
      // The API before the upgrade started everything on one queue: here each kind on a queue that a
      // worker polls as its interactive queue only (as the upgraded worker polls the old one).
      const api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
      const old = { ingest: `${api.config.TEMPORAL_TASK_QUEUE}-old-a`, deliveries: `${api.config.TEMPORAL_TASK_QUEUE}-old-b` };
      const before = await startTestApi({
        MONGODB_DB: api.config.MONGODB_DB,
        ELASTICSEARCH_INDEX_PREFIX: api.config.ELASTICSEARCH_INDEX_PREFIX,
        BOOTSTRAP_API_KEY: api.adminKey,
        TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
        TEMPORAL_INGEST_TASK_QUEUE: old.ingest,
        TEMPORAL_DELIVERY_TASK_QUEUE: old.deliveries,
      });
      const workers: Worker[] = [];
      try {
        for (const queue of [old.ingest, old.deliveries])
          workers.push(
            await startTestWorker(api, { dispatcher: false, config: { TEMPORAL_TASK_QUEUE: queue, WORKER_TASK_QUEUES: ['interactive'] } }),
          );
        const call = (method: string, path: string, body?: unknown) => before.call(method, path, { key: api.adminKey, body });
        const kb = (await call('POST', '/v1/kb', { name: 'older' })).json.data;
        const upload = await before.upload(
          '/v1/document',
          api.adminKey,
          { kb_id: kb.kb_id, parser_id: 'naive' },
          { name: 'GPL-3.txt', bytes: licence() },
        );
        const docId = upload.json.data.doc_id as string;
        expect((await api.services.temporal.workflow.getHandle(ingestWorkflowId(docId, 1)).describe()).taskQueue).toBe(old.ingest);
        expect((await settledDocument(api, docId, SETTLED_BOUND_MS)).status).toBe('ready');

        const subscription = (await call('POST', '/v1/webhook/subscriptions', { url: consumer.url, events: ['session.created'] })).json
          .data;
        const delivery = (await call('POST', `/v1/webhook/subscriptions/${subscription.subscription_id}/test`)).json.data;
        const [received] = await consumer.waitFor(1, SETTLED_BOUND_MS);
        expect(received!.json).toMatchObject({ event: 'webhook.test' });
        const delivered = await eventually(async () => {
          const d = (await api.call('GET', `/v1/webhook/deliveries/${delivery.delivery_id}`, { key: api.adminKey })).json.data;
          return d.status === 'delivered' ? d : undefined;
        }, SETTLED_BOUND_MS);
        expect(delivered.attempts).toHaveLength(1);
      } finally {
        for (const w of workers) await w.stop();
        await before.close({ keepDatabase: true });
        await api.close();
      }
    },
    TEST_BOUND_MS,
  );

  it(
    'polls every task queue from one worker process by default',
    async () => {
      const api = await startTestApi();
      // WORKER_TASK_QUEUES empty counts as unset: the shipped default.
      const worker = await spawnWorkerProcess(api.config, { WORKER_TASK_QUEUES: '' });
      try {
        const queues = allTaskQueues(api.config);
        expect(queues).toEqual([
          api.config.TEMPORAL_TASK_QUEUE,
          `${api.config.TEMPORAL_TASK_QUEUE}-ingest`,
          `${api.config.TEMPORAL_TASK_QUEUE}-deliveries`,
        ]);
        for (const queue of queues)
          await eventually(async () => ((await polled(api.services.temporal, queue)) ? true : undefined), SETTLED_BOUND_MS);
      } finally {
        await killProcess(worker, 'SIGTERM');
        await api.close();
      }
    },
    TEST_BOUND_MS,
  );
});
