import type { Logger } from './logger';

/**
 * How long a process may go on finishing the work it has in flight after an uncaught exception:
 * long enough for an ordinary request to complete, short enough that the supervisor (or the compose
 * restart policy) has a sound process serving again within seconds.
 */
const DRAIN_AFTER_CRASH_MS = 5_000;

/** Closing the clients after the drain gets this much more; then the process exits whatever is still going. */
const CLOSE_AFTER_DRAIN_MS = 2_000;

/** The log messages of the two faults, which the tests look for in a spawned process's output. */
export const UNCAUGHT_EXCEPTION_MESSAGE = 'uncaught exception; the process drains and exits';
export const UNHANDLED_REJECTION_MESSAGE = 'unhandled rejection';

/** The process's own shutdown (the one SIGTERM runs), allowed `inFlightMs` for the work in flight. */
type Drain = (inFlightMs: number) => Promise<void>;

export interface CrashExit {
  /** Sets the drain, once the process has something to drain; until then an uncaught exception exits at once. */
  drainWith(drain: Drain): void;
}

/**
 * After an uncaught exception the process's state is unknown (a half-done write, a lock never
 * released, a stream left open), so it does not go on: it logs the error with its stack, drains
 * for at most DRAIN_AFTER_CRASH_MS (the API stops taking connections and lets requests in flight
 * finish, the worker shuts its Temporal worker down) and exits with code 1. stack/supervise.sh and
 * the compose file's `restart: unless-stopped` start it again.
 */
export function exitOnUncaughtException(log: Logger): CrashExit {
  let drain: Drain = async () => {};
  let exiting = false;
  process.on('uncaughtException', (err, origin) => {
    log.error(UNCAUGHT_EXCEPTION_MESSAGE, { error: describe(err), origin, drain_ms: DRAIN_AFTER_CRASH_MS });
    // Whatever ends the process from here on (process.exit() without a code, an emptied event loop) ends it with 1.
    process.exitCode = 1;
    if (exiting) return;
    exiting = true;
    // Unref'd: it does not keep the process alive by itself, and a stuck drain cannot outlast it.
    setTimeout(() => {
      log.error('the drain after an uncaught exception did not finish in time; exiting', {
        waited_ms: DRAIN_AFTER_CRASH_MS + CLOSE_AFTER_DRAIN_MS,
      });
      process.exit(1);
    }, DRAIN_AFTER_CRASH_MS + CLOSE_AFTER_DRAIN_MS).unref();
    Promise.resolve()
      .then(() => drain(DRAIN_AFTER_CRASH_MS))
      .then(
        () => process.exit(1),
        (drainErr: unknown) => {
          log.error('the drain after an uncaught exception failed; exiting', { error: describe(drainErr) });
          process.exit(1);
        },
      );
  });
  return {
    drainWith(next) {
      drain = next;
    },
  };
}

/**
 * A rejection nobody handled is logged with the reason's stack (where the promise was created is
 * not known to Node) and the process goes on, unlike Node's default since v15, which treats it as
 * an uncaught exception. A rejection is raised through the promise's own chain: the async
 * functions it passed through ended normally, running their `finally` blocks, so what is lost is
 * the handling of one outcome, not the process's consistency, and ending every other run on the
 * process for it would do more harm. Each one is a bug all the same: the service code leaves no
 * promise unhandled (eslint's no-floating-promises, `void` included), and a test fails when a
 * spawned API or worker logs one (test/support/worker-process.ts).
 */
export function logUnhandledRejections(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error(UNHANDLED_REJECTION_MESSAGE, { error: describe(reason), reason_type: typeName(reason) });
  });
}

function describe(reason: unknown): string {
  return reason instanceof Error ? (reason.stack ?? `${reason.name}: ${reason.message}`) : String(reason);
}

const typeName = (reason: unknown): string =>
  reason instanceof Error
    ? reason.name
    : reason === null
      ? 'null'
      : typeof reason === 'object'
        ? (reason.constructor?.name ?? 'Object')
        : typeof reason;
