import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Config } from '../../common/config';
import { UNCAUGHT_EXCEPTION_MESSAGE, UNHANDLED_REJECTION_MESSAGE } from '../../common/process-faults';
import { suiteWorkflowBundlePath } from './workflow-bundle';

export const WORKER_SCRIPT = join(__dirname, '..', '..', 'dist', 'workers', 'main.js');
export const API_SCRIPT = join(__dirname, '..', '..', 'dist', 'api', 'main.js');

/** The log lines of unhandled rejections and uncaught exceptions of each spawned process; killProcess fails on any. */
const faults = new WeakMap<ChildProcess, string[]>();

function isFaultLine(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
    return entry.level === 'error' && (entry.msg === UNHANDLED_REJECTION_MESSAGE || entry.msg === UNCAUGHT_EXCEPTION_MESSAGE);
  } catch {
    return false;
  }
}

/** The environment of a built API or worker configured like the test API whose config it is given. */
export function builtProcessEnvironment(config: Config, overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(config)) if (value !== undefined) env[name] = String(value);
  // Info level: the process says when it is ready ('API listening', 'worker running').
  return Object.assign(env, { LOG_LEVEL: 'info' }, overrides);
}
const STARTUP_BOUND_MS = 180_000;

/** A built entry point (`npm run build`, which `npm test` runs first) as its own process, configured like the test API. */
async function spawnBuilt(script: string, readyLine: string, config: Config, overrides: Record<string, string>): Promise<ChildProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" first (npm test does)`);
  const child = spawn(process.execPath, [script], { env: builtProcessEnvironment(config, overrides), stdio: ['ignore', 'pipe', 'pipe'] });
  const seen: string[] = [];
  faults.set(child, seen);
  // The logger writes to stderr; stdout too, in case a library logs there.
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (line) => isFaultLine(line) && seen.push(line));
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

/**
 * The built worker, so a test can kill it without warning (SIGKILL) as a crash would. It loads the
 * suite's workflow bundle as a production image loads its own (WORKFLOW_BUNDLE_PATH), rather than
 * bundling at each start.
 */
export const spawnWorkerProcess = (config: Config, overrides: Record<string, string> = {}) =>
  spawnBuilt(WORKER_SCRIPT, 'worker running', config, { WORKFLOW_BUNDLE_PATH: suiteWorkflowBundlePath(), ...overrides });

export async function freePort(): Promise<number> {
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

/**
 * Stops a spawned process and then fails if it logged an unhandled rejection or an uncaught
 * exception while it ran: the test that used it fails, not only a log nobody reads.
 */
export async function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    // 'close': the process has exited and its output has been read to the end.
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill(signal);
    await closed;
  }
  const logged = faults.get(child) ?? [];
  if (logged.length > 0) throw new Error(`the process (pid ${child.pid}) logged ${logged.length} fault(s):\n${logged.join('\n')}`);
}
