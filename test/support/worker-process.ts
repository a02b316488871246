import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Config } from '../../common/config';

const WORKER_SCRIPT = join(__dirname, '..', '..', 'dist', 'workers', 'main.js');
const API_SCRIPT = join(__dirname, '..', '..', 'dist', 'api', 'main.js');
const STARTUP_BOUND_MS = 180_000;

/** A built entry point (`npm run build`, which `npm test` runs first) as its own process, configured like the test API. */
async function spawnBuilt(script: string, readyLine: string, config: Config, overrides: Record<string, string>): Promise<ChildProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" first (npm test does)`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(config)) if (value !== undefined) env[name] = String(value);
  // Info level: the process says `readyLine` when it is ready.
  Object.assign(env, { LOG_LEVEL: 'info' }, overrides);
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    // A loaded machine (a CI runner, every core busy) may take minutes; a child that did not start is ended.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${STARTUP_BOUND_MS / 1000} s`));
    }, STARTUP_BOUND_MS);
    const watch = (chunk: Buffer) => {
      if (chunk.toString().includes(readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  child.stdout.resume();
  child.stderr.resume();
  return child;
}

/** The built worker, so a test can kill it without warning (SIGKILL) as a crash would. */
export const spawnWorkerProcess = (config: Config, overrides: Record<string, string> = {}) =>
  spawnBuilt(WORKER_SCRIPT, 'worker running', config, overrides);

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The built API (whose parsing threads exist, unlike under Jest) on a port of its own; `url` is
 * its address. Configured like the test API whose config it is given, so it shares its database.
 */
export async function spawnApiProcess(
  config: Config,
  overrides: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = await spawnBuilt(API_SCRIPT, 'API listening', config, { API_HOST: '127.0.0.1', API_PORT: String(port), ...overrides });
  return { child, url: `http://127.0.0.1:${port}` };
}

export async function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
