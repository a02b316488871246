import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { UNCAUGHT_EXCEPTION_MESSAGE } from '../../common/process-faults';
import { startTestApi, type TestApi } from '../support/api';
import { suiteWorkflowBundlePath } from '../support/workflow-bundle';
import { isAlive, killSupervisors, supervise, type Supervisor } from '../support/supervisor';
import { API_SCRIPT, builtProcessEnvironment, freePort, WORKER_SCRIPT } from '../support/worker-process';

/** Throws an exception nobody catches when the process gets SIGHUP. */
const THROW_ON_SIGHUP = join(__dirname, '..', 'fixtures', 'process-faults', 'throw-on-sighup.js');

/** The process's log entries (JSON lines) with this message. */
const entries = (log: string, msg: string) =>
  log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === msg);

/** Sends a request's head and part of its body, so that the request stays in flight until `finish`. */
async function requestInFlight(port: number, path: string, key: string, body: string) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let response = '';
  socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
  // The process's exit may reset a connection it left hanging: that ends it as a close does.
  socket.on('error', () => undefined);
  const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(response)));
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  socket.write(head + body.slice(0, 5));
  return {
    /** Sends the rest of the body; resolves with the whole response once the server has closed the connection. */
    finish: () => {
      socket.write(body.slice(5));
      return ended;
    },
  };
}

/**
 * A process does not outlive an uncaught exception: it logs it, drains for a bounded time and
 * exits with code 1, and stack/supervise.sh (like the compose file's restart policy) starts it
 * again. The exception comes from a preloaded fixture, so the built service runs unchanged.
 */
describe('an uncaught exception ends the process, and the supervisor starts it again', () => {
  let api: TestApi;

  beforeAll(async () => {
    // The in-process API only provides the database (and its cleanup) that the supervised processes share.
    api = await startTestApi();
  });
  afterEach(killSupervisors);
  afterAll(async () => {
    await api?.close();
  });

  const superviseBuilt = (name: string, script: string, overrides: Record<string, string> = {}): Supervisor =>
    supervise(name, [process.execPath, script], {
      ...builtProcessEnvironment(api.config, overrides),
      NODE_OPTIONS: `--require ${THROW_ON_SIGHUP}`,
      SUPERVISE_BACKOFF_MS: '100',
    });

  it('the API: logs the exception, refuses new connections, answers a request in flight, exits with 1 within the drain and answers again', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const sup = superviseBuilt('api', API_SCRIPT, { API_HOST: '127.0.0.1', API_PORT: String(port) });
    const first = Number((await sup.waitFor(/started \(pid (\d+)\)/))[1]);
    await sup.waitFor(/API listening/, 60_000);

    const inFlight = await requestInFlight(port, '/v1/combo/agents', api.adminKey, JSON.stringify({ name: 'Finished while draining' }));
    // A client that never sends its whole body holds the drain back no longer than DRAIN_AFTER_CRASH_MS.
    await requestInFlight(port, '/v1/combo/agents', api.adminKey, JSON.stringify({ name: 'Never sent in full' }));
    process.kill(first, 'SIGHUP');
    await sup.waitFor(/"msg":"API stopping","reason":"uncaught exception"/);
    const [crash] = entries(sup.stderr(), UNCAUGHT_EXCEPTION_MESSAGE);
    expect(crash).toMatchObject({ level: 'error', component: 'api', origin: 'uncaughtException' });
    expect(crash!.error).toMatch(/^Error: crash fixture: an exception nobody catches, after SIGHUP\n\s+at /);

    // Draining: no new connection is taken, the request in flight is answered.
    await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
    const response = await inFlight.finish();
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain('"name":"Finished while draining"');

    // DRAIN_AFTER_CRASH_MS (5 s) for the request left hanging, then the clients close and the process exits.
    await sup.waitFor(/exited with code 1; restarting in 0\.100 s \(restart 1\)/, 15_000);
    expect(isAlive(first)).toBe(false);
    const second = Number((await sup.waitFor(/restart 1\)\n.*started \(pid (\d+)\)/))[1]);
    expect(second).not.toBe(first);
    await sup.waitFor(/restart 1\)[\s\S]*API listening/, 60_000);
    const health = await fetch(`${url}/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ code: 0, data: { status: 'ok' } });

    sup.process.kill('SIGTERM');
    expect(await sup.exited).toBe(0);
    expect(sup.log()).toMatch(/exited with code 0; stopped\n$/);
    expect(entries(sup.stderr(), UNCAUGHT_EXCEPTION_MESSAGE)).toHaveLength(1);
  }, 150_000);

  it('the worker: logs the exception, shuts its Temporal worker down, exits with 1 and runs again', async () => {
    // The suite's bundle, so that neither start of the worker runs webpack.
    {
      const sup = superviseBuilt('worker', WORKER_SCRIPT, { WORKFLOW_BUNDLE_PATH: suiteWorkflowBundlePath() });
      const first = Number((await sup.waitFor(/started \(pid (\d+)\)/))[1]);
      await sup.waitFor(/worker running/, 60_000);

      process.kill(first, 'SIGHUP');
      await sup.waitFor(/exited with code 1; restarting in 0\.100 s \(restart 1\)/, 15_000);
      const [crash] = entries(sup.stderr(), UNCAUGHT_EXCEPTION_MESSAGE);
      expect(crash).toMatchObject({ level: 'error', component: 'worker', origin: 'uncaughtException' });
      expect(crash!.error).toMatch(/crash fixture: an exception nobody catches, after SIGHUP/);
      expect(isAlive(first)).toBe(false);
      // The SDK logs its worker's states on stdout, the pipe the supervisor writes to: in order before the exit.
      const beforeExit = sup.log().slice(0, sup.log().indexOf('exited with code 1'));
      expect(beforeExit).toMatch(/state: 'DRAINING'[\s\S]*state: 'STOPPED'/);
      await sup.waitFor(/restart 1\)[\s\S]*worker running/, 60_000);

      sup.process.kill('SIGTERM');
      expect(await sup.exited).toBe(0);
      expect(sup.log()).toMatch(/exited with code 0; stopped\n$/);
    }
  }, 180_000);
});
