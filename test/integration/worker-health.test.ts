import { allTaskQueues } from '../../common/task-queues';
import { testConfig } from '../support/config';
import { eventually } from '../support/consumer';
import { freePort, killProcess, spawnWorkerProcess } from '../support/worker-process';

/** The worker process's health endpoint, for an orchestrator's liveness and readiness probes. */
describe('the worker health endpoint', () => {
  it('answers live while the process runs and ready while its workers poll their task queues, and stops with the process', async () => {
    const config = testConfig();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const worker = await spawnWorkerProcess(config, { WORKER_HEALTH_PORT: String(port), WORKER_HEALTH_HOST: '127.0.0.1' });
    try {
      const live = await fetch(`${base}/live`);
      expect(live.status).toBe(200);
      // With the process's memory: RSS, and the heap left by its last full collection (null before the first).
      const liveBody = (await live.json()) as { status: string; memory: Record<string, number | null> };
      expect(liveBody).toMatchObject({
        status: 'live',
        memory: {
          rss_bytes: expect.any(Number),
          heap_committed_bytes: expect.any(Number),
          heap_used_bytes: expect.any(Number),
          full_gcs: expect.any(Number),
        },
      });
      expect(liveBody.memory.rss_bytes).toBeGreaterThan(liveBody.memory.heap_used_bytes!);
      expect(liveBody.memory.heap_after_full_gc_bytes === null || typeof liveBody.memory.heap_after_full_gc_bytes === 'number').toBe(true);
      // 'worker running' is logged as the worker starts polling: ready at once, or within moments.
      const ready = await eventually(async () => {
        const res = await fetch(`${base}/ready`);
        return res.status === 200 ? res : undefined;
      }, 10_000);
      // One worker per task queue the process polls: all three by default.
      expect(await ready.json()).toEqual({
        status: 'ready',
        workers: allTaskQueues(config).map((taskQueue) => ({ task_queue: taskQueue, state: 'RUNNING' })),
      });
      expect((await fetch(`${base}/other`)).status).toBe(404);
      expect((await fetch(`${base}/ready`, { method: 'POST' })).status).toBe(405);
    } finally {
      await killProcess(worker, 'SIGTERM');
    }
    await expect(fetch(`${base}/live`)).rejects.toThrow();
  });
});
