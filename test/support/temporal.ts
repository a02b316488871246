import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';

let installed = false;
/** Keeps the SDK's INFO and WARN lines (expected failures included) out of the test output. */
export function quietTemporalRuntime(): void {
  if (installed) return;
  installed = true;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

/** The longest a test server may take to listen: a JVM's start on a busy machine, with room to spare. */
const SERVER_START_MS = 60_000;

/**
 * The SDK's own start of a time-skipping server (createTimeSkipping) gives the server 5 s to listen,
 * which a JVM misses on a busy machine (measured 5.7 and 6.8 s beside other work on 2 cores). The
 * server is started here instead and waited for until it listens; the environment then connects to
 * it as createTimeSkipping would (the SDK's `create` with an existing server, time skipping on).
 */
type CreateEnvironment = (options: {
  server: { type: 'existing' };
  address: string;
  namespace: string;
  supportsTimeSkipping: boolean;
}) => Promise<TestWorkflowEnvironment>;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

/** Whether something accepts connections on the loopback port now. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const answer = (listening: boolean) => () => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', answer(true)).once('error', answer(false));
  });

/**
 * Temporal's Java time-skipping test server from Maven Central (stack/install.sh test-server):
 * the SDK's own download of a test server cannot work on a machine without internet access.
 * Each call starts a server of its own (time skipping is the whole server's); teardown() stops it.
 */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (!path) throw new Error('TEMPORAL_TEST_SERVER_PATH not set: run the suite with "npm test"');
  quietTemporalRuntime();
  const port = await freePort();
  const server = spawn(path, [String(port)], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + SERVER_START_MS;
  while (!(await accepts(port))) {
    if (gone) throw new Error(`the time-skipping test server (${path}) exited before it listened`);
    if (Date.now() > deadline) {
      server.kill('SIGKILL');
      throw new Error(`the time-skipping test server (${path}) did not listen on port ${port} within ${SERVER_START_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (gone) return;
    server.kill('SIGTERM');
    await exited;
  };
  const create = (TestWorkflowEnvironment as unknown as { create: CreateEnvironment }).create.bind(TestWorkflowEnvironment);
  const env = await create({
    server: { type: 'existing' },
    address: `127.0.0.1:${port}`,
    namespace: 'default',
    supportsTimeSkipping: true,
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  const closeConnections = env.teardown.bind(env);
  env.teardown = async () => {
    await closeConnections();
    await stop();
  };
  return env;
}
