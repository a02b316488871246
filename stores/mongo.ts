import { MongoClient, MongoServerError, type Db, type IndexDescriptionInfo } from 'mongodb';

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/** One client per process; the driver pools connections. */
export async function connectMongo(uri: string, dbName: string): Promise<MongoHandle> {
  const client = new MongoClient(uri, {
    maxPoolSize: 50,
    serverSelectionTimeoutMS: 5_000,
    // FerretDB and MongoDB 7 both speak the stable API v1 subset this service uses.
    appName: 'combo-agent-service',
  });
  await client.connect();
  const db = client.db(dbName);
  return { client, db, close: () => client.close() };
}

/**
 * A write refused by a unique index. FerretDB 1.x answers an update that breaks one (inserts get
 * 11000) with InternalError (1) carrying PostgreSQL's unique violation, SQLSTATE 23505.
 */
export const isDuplicateKey = (err: unknown): boolean =>
  err instanceof MongoServerError && (err.code === 11000 || (err.code === 1 && /\(SQLSTATE 23505\)/.test(err.message)));

/**
 * Installations from before several integrations per channel were allowed hold a unique index on
 * (tenant, channel): dropped on start. Idempotent, and harmless when the API and the worker race.
 */
async function dropOneIntegrationPerChannelIndex(db: Db): Promise<void> {
  const indexes = (await db
    .collection('integrations')
    .listIndexes()
    .toArray()
    .catch(() => [])) as IndexDescriptionInfo[];
  const old = indexes.filter((ix) => ix.unique && Object.keys(ix.key ?? {}).join(',') === 'tenant_id,channel');
  await Promise.all(
    old.map((ix) =>
      db
        .collection('integrations')
        .dropIndex(String(ix.name))
        .catch((err: unknown) => {
          // Dropped meanwhile by the other process starting.
          if (!(err instanceof MongoServerError && (err.code === 27 || err.codeName === 'IndexNotFound'))) throw err;
        }),
    ),
  );
}

/**
 * The indexes that serve the lists: each key is a list's equality filter fields followed by its sort
 * (newest first and `_id`, which makes the order total for cursors), so MongoDB walks one index range
 * in order, reading only the page, and never sorts in memory. They replace the same keys without the
 * trailing `_id`, which served the first sort field only (retired below).
 */
const LIST_INDEXES: [collection: string, key: Record<string, 1 | -1>][] = [
  ['api_keys', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['api_keys', { tenant_id: 1, owner_id: 1, created_at: -1, _id: -1 }],
  ['agents', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['sessions', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['sessions', { tenant_id: 1, agent_id: 1, created_at: -1, _id: -1 }],
  ['sessions', { tenant_id: 1, user_id: 1, created_at: -1, _id: -1 }],
  ['sessions', { tenant_id: 1, status: 1, created_at: -1, _id: -1 }],
  ['messages', { tenant_id: 1, session_id: 1, created_at: 1, _id: 1 }],
  ['events', { tenant_id: 1, timestamp: -1, _id: -1 }],
  ['events', { tenant_id: 1, event: 1, timestamp: -1, _id: -1 }],
  ['webhook_subscriptions', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['webhook_deliveries', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['webhook_deliveries', { tenant_id: 1, event_id: 1, created_at: -1, _id: -1 }],
  ['webhook_deliveries', { tenant_id: 1, event: 1, created_at: -1, _id: -1 }],
  ['webhook_deliveries', { tenant_id: 1, subscription_id: 1, created_at: -1, _id: -1 }],
  ['webhook_deliveries', { tenant_id: 1, status: 1, created_at: -1, _id: -1 }],
  ['knowledge_bases', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['documents', { tenant_id: 1, kb_id: 1, created_at: -1, _id: -1 }],
  ['documents', { tenant_id: 1, kb_id: 1, status: 1, created_at: -1, _id: -1 }],
  ['skills', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['cron_jobs', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['integrations', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['model_providers', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['event_triggers', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['completion_runs', { tenant_id: 1, created_at: -1, _id: -1 }],
  ['completion_runs', { tenant_id: 1, session_id: 1, created_at: -1, _id: -1 }],
  ['completion_runs', { tenant_id: 1, agent_id: 1, created_at: -1, _id: -1 }],
  ['completion_runs', { tenant_id: 1, status: 1, created_at: -1, _id: -1 }],
];

/** List indexes without the `_id` tie-break, each a prefix of one above: kept, they only cost writes. */
const RETIRED_INDEXES: [collection: string, name: string][] = [
  ...[
    'api_keys',
    'agents',
    'sessions',
    'webhook_subscriptions',
    'webhook_deliveries',
    'knowledge_bases',
    'skills',
    'cron_jobs',
    'integrations',
    'event_triggers',
    'completion_runs',
  ].map((c): [string, string] => [c, 'tenant_id_1_created_at_-1']),
  ['api_keys', 'tenant_id_1_owner_id_1_created_at_-1'],
  ['sessions', 'tenant_id_1_agent_id_1_created_at_-1'],
  ['messages', 'session_id_1_created_at_1'],
  ['events', 'tenant_id_1_timestamp_-1'],
  ['webhook_deliveries', 'tenant_id_1_event_id_1'],
  ['webhook_deliveries', 'tenant_id_1_subscription_id_1_created_at_-1'],
  ['webhook_deliveries', 'tenant_id_1_status_1_created_at_-1'],
  ['documents', 'tenant_id_1_kb_id_1_created_at_-1'],
  ['completion_runs', 'tenant_id_1_session_id_1_created_at_-1'],
  ['completion_runs', 'tenant_id_1_agent_id_1_created_at_-1'],
];

/** Drops an index if it is there; harmless when the API and the worker race to drop it. */
async function dropIndexIfPresent(db: Db, collection: string, name: string): Promise<void> {
  await db
    .collection(collection)
    .dropIndex(name)
    .catch((err: unknown) => {
      // Never created, or dropped meanwhile by the other process starting (or the collection is not there yet).
      const gone = err instanceof MongoServerError && (err.code === 27 || err.code === 26 || /not found|doesn't exist/i.test(err.message));
      if (!gone) throw err;
    });
}

/** Creates the indexes every store needs (and drops retired ones); safe to call on every start. */
export async function ensureIndexes(db: Db): Promise<void> {
  await dropOneIntegrationPerChannelIndex(db);
  await Promise.all([
    ...LIST_INDEXES.map(([collection, key]) => db.collection(collection).createIndex(key)),
    db.collection('events').createIndex({ timestamp: 1 }),
    db.collection('webhook_delivery_claims').createIndex({ created_at: 1 }),
    db.collection('document_chunk_batches').createIndex({ doc_id: 1 }),
    db.collection('rate_limits').createIndex({ expires_at: 1 }),
    db.collection('idempotency_keys').createIndex({ expires_at: 1 }),
    db.collection('skills').createIndex({ tenant_id: 1, name: 1, version: 1 }, { unique: true }),
    db.collection('model_providers').createIndex({ tenant_id: 1, name: 1 }, { unique: true }),
    // Deleting a provider, or dropping models from it, looks for the agents that name it.
    db.collection('agents').createIndex({ tenant_id: 1, 'model.provider_id': 1 }),
    db.collection('rate_limits').createIndex({ bucket: 1 }),
    db.collection('inbound_events').createIndex({ integration_id: 1 }),
    db.collection('event_triggers').createIndex({ tenant_id: 1, 'trigger.source': 1 }),
    // Costs by agent and by day aggregate a tenant's runs of a time range.
    db.collection('cost_runs').createIndex({ tenant_id: 1, at: 1 }),
    // The OpenAI-compatible API finds a conversation's sessions by its key.
    db.collection('sessions').createIndex({ tenant_id: 1, conversation_key: 1, created_at: -1 }),
    // Stream readers ask every tick for the run heads that moved in the current second.
    db.collection('completion_event_heads').createIndex({ moved: 1 }),
  ]);
  await Promise.all(RETIRED_INDEXES.map(([collection, name]) => dropIndexIfPresent(db, collection, name)));
}
