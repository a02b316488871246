import type { Logger } from '../common/logger';

/**
 * Runs `once` again and again: at once while it keeps finding a full batch, else after
 * `intervalMs`. A failing round is logged and retried on the next. stop() ends the loop promptly.
 */
export function createPollLoop(
  what: string,
  once: () => Promise<number>,
  { intervalMs, batchSize, log }: { intervalMs: number; batchSize: number; log: Logger },
) {
  let stopped = false;
  let wake: (() => void) | undefined;

  async function run(): Promise<void> {
    while (!stopped) {
      let handled = 0;
      try {
        handled = await once();
      } catch (err) {
        log.warn(`${what} failed; retrying`, { error: String(err) });
      }
      if (handled < batchSize && !stopped) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, intervalMs).unref();
        });
      }
    }
  }

  return {
    /** Runs until stop(); resolves when the loop has ended. */
    start: () => run(),
    stop() {
      stopped = true;
      wake?.();
    },
  };
}
