import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../common/config';

const WORKER_SCRIPT = join(__dirname, '..', '..', 'dist', 'workers', 'main.js');

/**
 * The built worker (`npm run build`, which `npm test` runs first) as its own process, configured
 * like the test API, so a test can kill it without warning (SIGKILL) as a crash would.
 */
export async function spawnWorkerProcess(config: Config, overrides: Record<string, string> = {}): Promise<ChildProcess> {
  if (!existsSync(WORKER_SCRIPT)) throw new Error(`${WORKER_SCRIPT} is missing: run "npm run build" first (npm test does)`);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(config)) if (value !== undefined) env[name] = String(value);
  // Info level: the worker says "worker running" when it polls.
  Object.assign(env, { LOG_LEVEL: 'info' }, overrides);
  const child = spawn(process.execPath, [WORKER_SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker did not start within 60 s')), 60_000);
    const watch = (chunk: Buffer) => {
      if (chunk.toString().includes('worker running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

export async function killProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
