import { loadConfigOrExit } from '../common/config';
import { createLogger } from '../common/logger';
import { createApp } from './app';
import { createServices } from './services-factory';

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL, 'api');
  const services = await createServices(config, log);
  const server = createApp(services).listen(config.API_PORT, config.API_HOST);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.once('listening', resolve));
  log.info('API listening', { address: `http://${config.API_HOST}:${config.API_PORT}/v1` });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('API stopping', { signal });
    server.close();
    server.closeIdleConnections();
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
