import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startDelayingProxy } from '../support/delaying-proxy';
import { startTestWorker } from '../support/worker';

/**
 * Deleting a document while it is being parsed: the delete removes the record, terminates the
 * parse's workflow and purges the chunks, but the activity keeps embedding and indexing until it
 * notices (after its next batch, or at the cancellation its next heartbeat brings). Whatever it
 * indexes after the purge must leave the index again: once the activity has stopped, no chunk of
 * the document is left.
 */
describe('a document deleted mid-parse', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let slowIndex: Awaited<ReturnType<typeof startDelayingProxy>>;

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    // The worker's bulk requests take a second and a half: the delete, its purge and the
    // cancellation (heartbeats reach the server at once) all land while a batch is on its way.
    slowIndex = await startDelayingProxy(api.config.ELASTICSEARCH_URL, (method, path) =>
      method === 'POST' && path.includes('/_bulk') ? 1_500 : 0,
    );
    worker = await startTestWorker(api, {
      dispatcher: false,
      ingestBatchSize: 4,
      elasticsearchUrl: slowIndex.url,
      maxHeartbeatThrottleMs: 100,
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await slowIndex?.close();
    await api?.close();
  });

  const chunksOf = async (docId: string) => {
    const index = api.services.chunkIndex.indexFor(384);
    await api.services.es.indices.refresh({ index, ignore_unavailable: true });
    return (await api.services.es.count({ index, query: { term: { doc_id: docId } }, ignore_unavailable: true })).count;
  };

  it('leaves no chunk in Elasticsearch once the stopped parse has ended', async () => {
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'race', chunk_tokens: 64, overlap_tokens: 0 } })).json
      .data;
    // About 1.6 MB of text: thousands of small chunks, minutes of embedding on the local model.
    const bytes = Buffer.from(
      Array.from({ length: 30_000 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog near the river bank.\n`).join(''),
    );
    const up = await api.upload('/v1/document', api.adminKey, { kb_id: kb.kb_id }, { name: 'large.txt', bytes });
    expect(up.json.code).toBe(0);
    const docId = up.json.data.doc_id as string;

    // Mid-parse: some batches are in the index, most are still to come.
    // (The index may exist a moment before its shard can answer: such a count is taken as none yet.)
    await eventually(async () => ((await chunksOf(docId).catch(() => 0)) >= 4 ? true : undefined), 120_000);
    const del = await api.call('DELETE', `/v1/document/${docId}`, { key: api.adminKey });
    expect(del.json).toMatchObject({ code: 0, data: { deleted: true } });

    // The activity stops at its next batch at the latest (or at the cancellation of its next
    // heartbeat); only then can nothing more be written.
    await eventually(async () => (worker.inFlightActivities() === 0 ? true : undefined), 90_000);
    expect(await chunksOf(docId)).toBe(0);
    expect((await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.code).toBe(10004);
  }, 240_000);
});
