import type { Client as EsClient } from '@elastic/elasticsearch';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { ActivityDeps } from '../activities';
import { createCommands } from '../commands';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import { createKnowledgeCatalog } from '../knowledge/catalog';
import { createParsePool, parsePoolOptions } from '../knowledge/parse-pool';
import { modelChatsOf } from '../upstream/models/model-chats';
import { createRunWatch } from '../commands/run-watch';
import { createStores } from '../stores';
import { createPollLoop } from './poll-loop';

const DISPATCH_BATCH = 200;
const COST_BATCH = 200;

/** Whether a worker process runs the webhook dispatcher: when it polls the delivery task queue. */
const dispatchesEvents = (config: Config): boolean => config.WORKER_TASK_QUEUES.includes('deliveries');

export interface WorkerClients {
  config: Config;
  log: Logger;
  db: Db;
  es: EsClient;
  temporal: Client;
  /** How often the webhook dispatcher and the cost aggregator look for work when idle (tests poll faster). */
  pollIntervalsMs?: { dispatch: number; costs: number };
}

/**
 * The worker's composition root: the stores, the commands and the activities' dependencies built
 * once from the process's clients, and the two poll loops the worker runs beside its task queues
 * (recorded events to webhook deliveries, only where the delivery queue is polled; queued run costs into the ledger).
 */
export function composeWorker({ config, log, db, es, temporal, pollIntervalsMs }: WorkerClients) {
  const stores = createStores(db, es, config, { readCaches: false });
  const catalog = createKnowledgeCatalog(config);
  const chats = modelChatsOf(config, (tenantId, providerId) => stores.modelProviders.connection(tenantId, providerId));
  const commands = createCommands({ config, log, temporal, db, es, stores, catalog, modelChats: chats });
  const parsing = createParsePool(parsePoolOptions(config, config.PARSE_TIMEOUT_MS));
  const activities: ActivityDeps = {
    config,
    stores,
    catalog,
    parsing,
    runWatch: createRunWatch(temporal),
    chats,
  };
  /** One round of the webhook dispatcher: recorded events' first attempts, and delivery workflows for the rest; returns how many events it handled. */
  const dispatchOnce = () => commands.webhooks.dispatchRecorded(DISPATCH_BATCH);
  // The dispatcher's batches are delivery work: only a process that polls the delivery queue runs them,
  // so a worker for interactive work alone never spends its event loop on them.
  const dispatcher = dispatchesEvents(config)
    ? createPollLoop('event dispatch', dispatchOnce, {
        intervalMs: pollIntervalsMs?.dispatch ?? config.WEBHOOK_DISPATCH_INTERVAL_MS,
        batchSize: DISPATCH_BATCH,
        log,
      })
    : undefined;
  const costAggregator = createPollLoop('cost aggregation', () => commands.costs.foldQueued(COST_BATCH), {
    intervalMs: pollIntervalsMs?.costs ?? config.COST_AGGREGATE_INTERVAL_MS,
    batchSize: COST_BATCH,
    log,
  });
  return { stores, commands, activities, dispatchOnce, dispatcher, costAggregator, close: () => parsing.close() };
}
