import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createKnowledgeActivities } from '../../activities/knowledge';
import { signatureMatches } from '../../common/signature';
import { createParsePool, parsePoolOptions } from '../../knowledge/parse-pool';
import { startTestApi, type TestApi } from '../support/api';
import { type Consumer, eventually, startConsumer } from '../support/consumer';
import { settledDocument } from '../support/documents';
import { startTestWorker } from '../support/worker';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'documents', name));

/**
 * A parse's outcome is an outbound event like any other: recorded in the event log by the ingest
 * workflow's activities and delivered by the dispatcher to the subscriptions that ask for it.
 */
describe('document.parsed and document.failed', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let consumer: Consumer;
  let kbId: string;
  const secret = 'document-events-secret-0123456789';

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000', RATE_LIMIT_UPLOADS_PER_MIN: '1000' });
    worker = await startTestWorker(api);
    consumer = await startConsumer();
    kbId = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'events' } })).json.data.kb_id;
    const sub = await api.call('POST', '/v1/webhook/subscriptions', {
      key: api.adminKey,
      body: { url: consumer.url, events: ['document.parsed', 'document.failed'], secret },
    });
    expect(sub.json.code).toBe(0);
  });
  afterAll(async () => {
    await worker?.stop();
    await consumer?.close();
    await api?.close();
  });

  const upload = async (name: string) =>
    (await api.upload('/v1/document', api.adminKey, { kb_id: kbId }, { name, bytes: fixture(name) })).json.data.doc_id as string;
  const deliveredFor = (docId: string) => consumer.received.filter((r) => r.json.data.doc_id === docId);
  const logged = async (event: string) =>
    (await api.call('GET', `/v1/events?event=${event}&page_size=100`, { key: api.adminKey })).json.data.items as Array<{
      event_id: string;
      data: Record<string, unknown>;
    }>;

  it('delivers document.parsed with the chunk count once the document is ready, signed, and logs it once', async () => {
    const docId = await upload('guide.md');
    const doc = await settledDocument(api, docId);
    expect(doc.status).toBe('ready');

    const [request] = await eventually(async () => (deliveredFor(docId).length > 0 ? deliveredFor(docId) : undefined));
    expect(request!.json).toMatchObject({
      event: 'document.parsed',
      tenant_id: 'default',
      data: { doc_id: docId, kb_id: kbId, chunk_count: doc.chunk_count, parse: 1 },
    });
    expect(request!.json.data.chunk_count).toBeGreaterThan(0);
    expect(request!.json.data.duration_ms).toBeGreaterThanOrEqual(0);
    const ts = String(request!.headers['x-combo-timestamp']);
    expect(signatureMatches(secret, ts, request!.rawBody, String(request!.headers['x-combo-signature']))).toBe(true);

    const entries = (await logged('document.parsed')).filter((e) => e.data.doc_id === docId);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.event_id).toBe(request!.json.event_id);
    expect(await logged('document.failed')).not.toContainEqual(
      expect.objectContaining({ data: expect.objectContaining({ doc_id: docId }) }),
    );
  });

  it('delivers document.failed with the reason for a file that cannot be read', async () => {
    const docId = await upload('random.bin');
    const doc = await settledDocument(api, docId);
    expect(doc).toMatchObject({ status: 'failed', error: { reason: 'unsupported' } });

    const [request] = await eventually(async () => (deliveredFor(docId).length > 0 ? deliveredFor(docId) : undefined));
    expect(request!.json).toMatchObject({
      event: 'document.failed',
      data: { doc_id: docId, kb_id: kbId, reason: 'unsupported', message: doc.error.message, parse: 1 },
    });
    expect((await logged('document.failed')).filter((e) => e.data.doc_id === docId)).toHaveLength(1);
  });

  it('records an outcome once however often its activity runs (the event id comes from the document and its parse)', async () => {
    const docId = await upload('guide.md');
    await settledDocument(api, docId);
    // The event is written just after the document's outcome: it may trail the status by a moment.
    const before = await eventually(async () => {
      const found = (await logged('document.parsed')).filter((e) => e.data.doc_id === docId);
      return found.length > 0 ? found : undefined;
    });
    expect(before).toHaveLength(1);
    // The same activity once more, as a retry after a lost completion would run it: same event id, nothing new.
    const parsing = createParsePool(parsePoolOptions(api.config, api.config.PARSE_TIMEOUT_MS));
    try {
      const { documents, knowledgeBases, chunkIndex, eventLog, catalog } = api.services;
      const activities = createKnowledgeActivities({ documents, knowledgeBases, chunkIndex, eventLog, catalog, parsing, batchSize: 64 });
      await new MockActivityEnvironment().run((ref) => activities.ingestDocument(ref), { tenantId: 'default', kbId, docId, parse: 1 });
    } finally {
      await parsing.close();
    }
    const after = (await logged('document.parsed')).filter((e) => e.data.doc_id === docId);
    expect(after.map((e) => e.event_id)).toEqual(before.map((e) => e.event_id));
  });
});
