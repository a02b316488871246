import { temporalDataConverter } from '../common/temporal-data-converter';
import { hostname } from 'node:os';
import { Client as EsClient } from '@elastic/elasticsearch';
import { Client, Connection } from '@temporalio/client';
import { createCommands } from '../commands';
import { elasticsearchClientOptions, temporalConnectionOptions } from '../common/backend-connections';
import type { Config } from '../common/config';
import { randomToken } from '../common/ids';
import type { Logger } from '../common/logger';
import { createKnowledgeCatalog } from '../knowledge/catalog';
import { createParsePool, parsePoolOptions } from '../knowledge/parse-pool';
import { createStores } from '../stores';
import { connectMongo, ensureIndexes, type MongoHandle } from '../stores/mongo';
import { createRateLimiter } from '../stores/rate-limits';
import { createAuthenticator } from './auth';
import { createConsoleTokens } from './console-tokens';
import type { Services } from './services';

export interface ServiceOptions {
  /** How stale a process's view of shared rate counts may get (ms). */
  rateLimitSyncMs?: number;
}

/** The API process's services, with the clients its commands and stores use (tests reach them too). */
export type ApiRuntime = Services & { temporal: Client; mongo: MongoHandle; es: EsClient; close(): Promise<void> };

/** The API's composition root: connects every client once, wires the stores and the commands; the caller owns `close()`. */
export async function createServices(config: Config, log: Logger, options: ServiceOptions = {}): Promise<ApiRuntime> {
  const mongo = await connectMongo(config.MONGODB_URI, config.MONGODB_DB);
  const es = new EsClient(elasticsearchClientOptions(config, 30_000));
  let connection: Connection;
  try {
    await ensureIndexes(mongo.db);
    connection = await Connection.connect(temporalConnectionOptions(config));
  } catch (err) {
    // A start that fails here leaves nothing open behind it (the process, or a test, can end).
    await Promise.allSettled([es.close(), mongo.close()]);
    throw err;
  }
  const temporal = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(config) });

  const stores = createStores(mongo.db, es, config, { readCaches: true });
  // Attachments are read while their client waits, in threads: the event loop keeps answering.
  const attachmentParsing = createParsePool(parsePoolOptions(config, config.FILE_PARSE_TIMEOUT_MS));
  if (config.BOOTSTRAP_API_KEY) await stores.apiKeys.ensureBootstrap(config.BOOTSTRAP_TENANT_ID, config.BOOTSTRAP_API_KEY);

  const consoleSigningKey = config.CONSOLE_TOKEN_SIGNING_KEY
    ? Buffer.from(config.CONSOLE_TOKEN_SIGNING_KEY, 'base64')
    : await stores.serviceKeys.getOrCreate('console-token-signing');
  const consoleTokens = createConsoleTokens(consoleSigningKey, config.CONSOLE_TOKEN_TTL_S);
  const catalog = createKnowledgeCatalog(config);

  const rateLimiter = createRateLimiter(mongo.db, {
    limits: {
      completions: config.RATE_LIMIT_COMPLETIONS_PER_MIN,
      uploads: config.RATE_LIMIT_UPLOADS_PER_MIN,
      default: config.RATE_LIMIT_DEFAULT_PER_MIN,
      inbound: config.RATE_LIMIT_INBOUND_PER_MIN,
      inbound_refused: config.RATE_LIMIT_INBOUND_PER_MIN,
    },
    syncMs: options.rateLimitSyncMs ?? config.RATE_LIMIT_SYNC_MS,
    processId: `${hostname()}-${process.pid}-${randomToken(6)}`,
    onSyncError: (err) => log.warn('rate-limit counts not shared (database unavailable); counting locally', { error: String(err) }),
  });
  const services: Services = {
    ...stores,
    config,
    log,
    catalog,
    auth: createAuthenticator(config, stores.apiKeys, consoleTokens),
    consoleTokens,
    rateLimiter,
    commands: createCommands({ config, log, temporal, db: mongo.db, es, stores, catalog, attachmentParsing }),
  };
  return {
    ...services,
    temporal,
    mongo,
    es,
    async close() {
      // The last counts go to the store while it is open: the other processes count them this window.
      await rateLimiter.close();
      await attachmentParsing.close();
      await connection.close();
      await es.close();
      await mongo.close();
    },
  };
}
