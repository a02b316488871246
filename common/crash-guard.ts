import type { Logger } from './logger';

/**
 * A long-running process (API, worker) outlives any one failing request, activity or workflow: an
 * error nobody awaited is logged with its stack and the process goes on. Node's default, exiting,
 * would stop every other run on this process for one bad value, and a retried activity would stop
 * the next worker too. The failing work itself is still recorded by its own error handling.
 */
export function survivePassingFaults(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled rejection (the process goes on)', { error: describe(reason) });
  });
  process.on('uncaughtException', (err, origin) => {
    log.error('uncaught exception (the process goes on)', { error: describe(err), origin });
  });
}

function describe(reason: unknown): string {
  return reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
}
