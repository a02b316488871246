import { loadConfigOrExit } from '../common/config';
import { survivePassingFaults } from '../common/crash-guard';
import { createLogger } from '../common/logger';
import { createApp } from './app';
import { createServices } from './services-factory';

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL, 'api');
  survivePassingFaults(log);
  const services = await createServices(config, log);
  const server = createApp(services).listen(config.API_PORT, config.API_HOST);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  log.info('API listening', { address: `http://${config.API_HOST}:${config.API_PORT}/v1` });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('API stopping', { signal });
    // Requests in flight finish before the clients they use are closed.
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await services.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`API failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
