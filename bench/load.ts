import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** Drives one URL with keep-alive connections for a fixed time (autocannon, in this process). */
export async function drive(url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<LoadResult> {
  const result = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/**
 * Node's options for the processes a bench starts: with BENCH_CPU_PROFILE_DIR set, each writes a CPU
 * profile there as it exits (one per thread: the worker's workflows run in a thread of their own).
 */
const profiling = process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`] : [];

/** Starts a Node server in its own process (so it does not share a CPU queue with the load) and waits until it listens. */
export async function startServer(script: string, env: NodeJS.ProcessEnv, readyUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...profiling, script], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await fetch(readyUrl)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`${script} did not answer ${readyUrl}`);
}

/** Starts a Node process and waits until it prints `marker` (on stdout or stderr). */
export async function startProcess(script: string, env: NodeJS.ProcessEnv, marker: string, timeoutMs = 120_000): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...profiling, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not print "${marker}"`)), timeoutMs);
    const watch = (chunk: Buffer) => {
      if (chunk.toString().includes(marker)) {
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

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resident memory of a process in MiB (Linux). */
export function residentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** POSTs JSON to the service and returns the envelope's `data`; any other code stops the benchmark. */
export function envelopePoster(base: string, headers: Record<string, string>) {
  return async (path: string, body: unknown): Promise<Record<string, string>> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await res.json()) as { code: number; data: Record<string, string> };
    if (json.code !== 0) throw new Error(`${path} answered ${JSON.stringify(json)}`);
    return json.data;
  };
}

/**
 * The environment of a bench's own API and worker: its own database and task queue (`name` and a
 * random suffix), a bootstrap key, the scripted model, and rate limits no load reaches (the limiter
 * still counts and answers its headers).
 */
export function benchServiceEnv(
  name: string,
  suffix: string,
  { key, modelUrl, apiPort }: { key: string; modelUrl: string; apiPort: number },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    MONGODB_DB: `bench_${name}_${suffix}`,
    TEMPORAL_TASK_QUEUE: `bench-${name}-${suffix}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BOOTSTRAP_API_KEY: key,
    LLM_BASE_URL: modelUrl,
    RATE_LIMIT_COMPLETIONS_PER_MIN: '100000000',
    RATE_LIMIT_UPLOADS_PER_MIN: '100000000',
    RATE_LIMIT_DEFAULT_PER_MIN: '100000000',
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    LOG_LEVEL: 'warn',
  };
}
