import { loadConfigOrExit } from '../common/config';
import { exitOnUncaughtException, logUnhandledRejections } from '../common/process-faults';
import { createLogger } from '../common/logger';
import { createApp } from './app';
import { createServices } from './services-factory';

/** How long requests in flight may take to finish once SIGTERM or SIGINT has stopped new connections. */
const STOP_DRAIN_MS = 10_000;

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL, 'api');
  const crash = exitOnUncaughtException(log);
  logUnhandledRejections(log);
  const services = await createServices(config, log);
  const server = createApp(services).listen(config.API_PORT, config.API_HOST);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  log.info('API listening', { address: `http://${config.API_HOST}:${config.API_PORT}/v1` });

  // One shutdown for a signal and for an uncaught exception; whichever comes second joins the first's.
  let stopping: Promise<void> | undefined;
  const drain = (reason: string, inFlightMs: number) =>
    (stopping ??= (async () => {
      log.info('API stopping', { reason });
      // Requests in flight finish (within inFlightMs) before the clients they use are closed.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, inFlightMs).unref())]);
      await services.close();
    })());
  crash.drainWith((inFlightMs) => drain('uncaught exception', inFlightMs));
  const stopOn = (signal: NodeJS.Signals) => {
    drain(signal, STOP_DRAIN_MS).then(
      // Without a code: 0, or 1 when an uncaught exception came during the drain (process.exitCode).
      () => process.exit(),
      (err: unknown) => {
        log.error('API did not stop cleanly', { error: String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stopOn('SIGTERM'));
  process.on('SIGINT', () => stopOn('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`API failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
