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

export const isDuplicateKey = (err: unknown): boolean => err instanceof MongoServerError && err.code === 11000;

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

/** Creates the indexes every store needs (and drops retired ones); safe to call on every start. */
export async function ensureIndexes(db: Db): Promise<void> {
  await dropOneIntegrationPerChannelIndex(db);
  await Promise.all([
    db.collection('api_keys').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('api_keys').createIndex({ tenant_id: 1, owner_id: 1, created_at: -1 }),
    db.collection('agents').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('sessions').createIndex({ tenant_id: 1, agent_id: 1, created_at: -1 }),
    db.collection('sessions').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('messages').createIndex({ session_id: 1, created_at: 1 }),
    db.collection('events').createIndex({ tenant_id: 1, timestamp: -1 }),
    db.collection('events').createIndex({ timestamp: 1 }),
    db.collection('webhook_subscriptions').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('webhook_deliveries').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('webhook_deliveries').createIndex({ tenant_id: 1, event_id: 1 }),
    db.collection('webhook_deliveries').createIndex({ tenant_id: 1, subscription_id: 1, created_at: -1 }),
    db.collection('webhook_deliveries').createIndex({ tenant_id: 1, status: 1, created_at: -1 }),
    db.collection('knowledge_bases').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('documents').createIndex({ tenant_id: 1, kb_id: 1, created_at: -1 }),
    db.collection('document_chunk_batches').createIndex({ doc_id: 1 }),
    db.collection('rate_limits').createIndex({ expires_at: 1 }),
    db.collection('idempotency_keys').createIndex({ expires_at: 1 }),
    db.collection('skills').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('cron_jobs').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('skills').createIndex({ tenant_id: 1, name: 1, version: 1 }, { unique: true }),
    db.collection('rate_limits').createIndex({ bucket: 1 }),
    db.collection('integrations').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('inbound_events').createIndex({ integration_id: 1 }),
    db.collection('event_triggers').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('event_triggers').createIndex({ tenant_id: 1, 'trigger.source': 1 }),
    db.collection('completion_runs').createIndex({ tenant_id: 1, created_at: -1 }),
    db.collection('completion_runs').createIndex({ tenant_id: 1, session_id: 1, created_at: -1 }),
    db.collection('completion_runs').createIndex({ tenant_id: 1, agent_id: 1, created_at: -1 }),
    // Costs by agent and by day aggregate a tenant's runs of a time range.
    db.collection('cost_runs').createIndex({ tenant_id: 1, at: 1 }),
  ]);
}
