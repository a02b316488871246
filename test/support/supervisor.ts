import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const SUPERVISE = join(__dirname, '..', '..', 'stack', 'supervise.sh');

export interface Supervisor {
  process: ChildProcess;
  /** Everything the supervisor and its child wrote so far, stdout and stderr together. */
  log: () => string;
  /** What went to stderr alone: the supervised process's own log lines (JSON), whole, with no supervisor line among them. */
  stderr: () => string;
  /** Resolves with the match once `pattern` matches the log; rejects with the log after `timeoutMs`. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];

/** stack/supervise.sh keeping `command` running, as `npm start` keeps the API and the worker. */
export function supervise(name: string, command: string[], env: NodeJS.ProcessEnv): Supervisor {
  // A process group of its own, so that a failed test can end the supervisor and its child together.
  const proc = spawn('bash', [SUPERVISE, name, ...command], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.push(proc);
  let log = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    log += chunk.toString();
    for (const listener of listeners) listener();
  };
  proc.stdout.on('data', append);
  proc.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    append(chunk);
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const waitFor = (pattern: RegExp, timeoutMs = 20_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = log.match(pattern);
        if (!match) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(match);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${pattern} never appeared in the supervisor's log:\n${log}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  return { process: proc, log: () => log, stderr: () => stderr, waitFor, exited };
}

/** Ends every supervisor still running and its child (SIGKILL to the process group): for afterEach. */
export function killSupervisors(): void {
  for (const proc of running.splice(0)) if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, 'SIGKILL');
}

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
