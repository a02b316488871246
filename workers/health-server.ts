import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { State } from '@temporalio/worker';
import type { MemoryFigures } from './memory-figures';

/** What the health endpoint asks of each of the process's workers. */
export interface PollingWorker {
  taskQueue: string;
  getState(): State;
}

/**
 * The worker process's endpoint for an orchestrator's probes: GET /live answers 200 while the
 * process runs (its event loop answers); GET /ready answers 200 while every worker of the process
 * polls its task queue (Temporal's RUNNING state), 503 before the workers have started and once a
 * shutdown has begun. Both bodies name each task queue's worker state; /live's also carries the
 * process's memory (RSS, and the heap left after the last full collection, where a leak shows).
 */
export async function startHealthServer({
  host,
  port,
  workers,
  memory,
}: {
  host: string;
  port: number;
  /** The workers as they are now: empty while the process connects and before they are created. */
  workers: () => readonly PollingWorker[];
  memory: () => MemoryFigures;
}): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const states = workers().map((w) => ({ task_queue: w.taskQueue, state: w.getState() }));
    const polling = states.length > 0 && states.every((s) => s.state === 'RUNNING');
    const path = (req.url ?? '/').split('?')[0];
    const status = req.method !== 'GET' ? 405 : path === '/live' ? 200 : path === '/ready' ? (polling ? 200 : 503) : 404;
    const body =
      status === 405 || status === 404
        ? { error: status === 404 ? 'not found' : 'GET only' }
        : path === '/live'
          ? { status: 'live', workers: states, memory: memory() }
          : { status: polling ? 'ready' : 'not_ready', workers: states };
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
