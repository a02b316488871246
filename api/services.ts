import type { Commands } from '../commands';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import type { KnowledgeCatalog } from '../knowledge/catalog';
import type { Stores } from '../stores';
import type { RateLimiter } from '../stores/rate-limits';
import type { Authenticator } from './auth';
import type { ConsoleTokens } from './console-tokens';

/**
 * Everything a route handler may use, built once per process (api/main.ts or a test): the stores
 * for simple reads and writes, the commands for everything that reaches Temporal or takes more
 * than one step. No Temporal, database or Elasticsearch client: the commands and stores hold them.
 */
export interface Services extends Stores {
  config: Config;
  log: Logger;
  catalog: KnowledgeCatalog;
  auth: Authenticator;
  consoleTokens: ConsoleTokens;
  rateLimiter: RateLimiter;
  commands: Commands;
}
