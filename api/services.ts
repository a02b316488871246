import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Commands } from '../commands';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import type { Stores } from '../stores';
import type { MongoHandle } from '../stores/mongo';
import type { RateLimiter } from '../stores/rate-limits';
import type { Authenticator } from './auth';

/**
 * Everything a route handler may use, built once per process (api/main.ts or a test): the stores
 * for simple reads and writes, the commands for everything that reaches Temporal or takes more
 * than one step. No Temporal client: that is the commands' alone.
 */
export interface Services extends Stores {
  config: Config;
  log: Logger;
  mongo: MongoHandle;
  es: EsClient;
  catalog: KnowledgeCatalog;
  auth: Authenticator;
  rateLimiter: RateLimiter;
  commands: Commands;
}
