import { DocId } from '../../common/search-attributes';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startDelayingProxy } from '../support/delaying-proxy';
import { settledDocument, uploadLicence } from '../support/documents';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;
interface ChunkSource {
  parse: number;
  staged: boolean;
}

/** The document's chunks as Elasticsearch holds them, searchable or not. */
async function indexedChunks(api: TestApi, dimension: number, docId: string) {
  const index = api.services.chunkIndex.indexFor(dimension);
  await api.services.es.indices.refresh({ index });
  const found = await api.services.es.search<ChunkSource>({
    index,
    size: 1000,
    _source: ['parse', 'staged'],
    query: { term: { doc_id: docId } },
  });
  return found.hits.hits.map((h) => ({ id: h._id!, ...h._source! }));
}

/** Chunk ids a search restricted to the document answers with. */
async function searchedIds(api: TestApi, kbId: string, docId: string): Promise<string[]> {
  const res = await api.call('POST', '/v1/chunk/search', {
    key: api.adminKey,
    body: { question: 'software licence terms', kb_ids: [kbId], doc_ids: [docId], similarity_threshold: 0, top_k: 100, rerank_top_n: 0 },
  });
  expect(res.json.code).toBe(0);
  return res.json.data.chunks.map((c: { chunk_id: string }) => c.chunk_id);
}

const parsedEvents = async (api: TestApi, event: string, docId: string) =>
  (
    (await api.call('GET', `/v1/events?event=${event}&page_size=100`, { key: api.adminKey })).json.data.items as Array<{
      data: { doc_id: string; parse: number };
    }>
  )
    .filter((e) => e.data.doc_id === docId)
    .map((e) => e.data);

describe('reparsing a document', () => {
  let api: TestApi;
  let worker: Worker;
  let slowIndex: Awaited<ReturnType<typeof startDelayingProxy>>;
  let kbId: string;

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000', RATE_LIMIT_UPLOADS_PER_MIN: '1000' });
    // Bulk requests a little slow, so a parse lasts long enough to be watched half-way.
    slowIndex = await startDelayingProxy(api.config.ELASTICSEARCH_URL, (method, path) =>
      method === 'POST' && path.includes('/_bulk') ? 300 : 0,
    );
    worker = await startTestWorker(api, { dispatcher: false, ingestBatchSize: 8, elasticsearchUrl: slowIndex.url });
    kbId = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'licences', chunk_tokens: 64, overlap_tokens: 0 } })).json
      .data.kb_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await slowIndex?.close();
    await api?.close();
  });

  it('parses again with the knowledge base’s current chunking, the old chunks answering until the new ones replace them', async () => {
    const docId = await uploadLicence(api, kbId);
    // A parse is running: a reparse now is a conflict.
    const early = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: {} });
    expect(early).toMatchObject({ status: 409, json: { code: 10005, data: { doc_id: docId } } });
    const first = await settledDocument(api, docId, 120_000);
    expect(first).toMatchObject({ status: 'ready', parse: 1 });
    const firstChunks = await indexedChunks(api, 384, docId);
    expect(firstChunks).toHaveLength(first.chunk_count);
    expect(firstChunks.every((c) => c.parse === 1 && c.staged === false)).toBe(true);
    const firstIds = new Set(firstChunks.map((c) => c.id));

    // Bigger chunks from now on: the reparse takes the knowledge base's current settings.
    await api.call('PUT', `/v1/kb/${kbId}`, { key: api.adminKey, body: { chunk_tokens: 256 } });
    const res = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      doc_id: docId,
      status: 'parsing',
      parse: 2,
      parser_id: 'naive',
      error: null,
      chunk_count: first.chunk_count,
      progress: { stage: 'queued', chunks_indexed: 0, chunks_total: null, started_at: null, finished_at: null },
    });
    const again = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: {} });
    expect(again.json).toMatchObject({ code: 10005, data: { parse: 2 } });

    // Half-way: the new chunks are in the index but hidden; search answers with the old ones.
    await eventually(async () => ((await indexedChunks(api, 384, docId)).some((c) => c.staged) ? true : undefined), 60_000);
    expect((await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data).toMatchObject({
      status: 'parsing',
      chunk_count: first.chunk_count,
    });
    const during = await searchedIds(api, kbId, docId);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((id) => firstIds.has(id))).toBe(true);

    const second = await settledDocument(api, docId, 120_000);
    expect(second).toMatchObject({ status: 'ready', parse: 2, error: null, progress: { stage: 'done' } });
    expect(second.chunk_count).toBeGreaterThan(0);
    expect(second.chunk_count).toBeLessThan(first.chunk_count);
    const secondChunks = await indexedChunks(api, 384, docId);
    expect(secondChunks).toHaveLength(second.chunk_count);
    expect(secondChunks.every((c) => c.parse === 2 && c.staged === false && !firstIds.has(c.id))).toBe(true);
    const after = await searchedIds(api, kbId, docId);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((id) => !firstIds.has(id))).toBe(true);

    // Each parse is its own workflow, found by the document's id; the document shows `ready` as its
    // activity records it, a moment before the workflow itself completes.
    const temporal = api.services.temporal;
    for (const workflowId of [`document-ingest-${docId}`, `document-ingest-${docId}-2`]) {
      const handle = temporal.workflow.getHandle(workflowId);
      await handle.result();
      const described = await handle.describe();
      expect({ workflowId, status: described.status.name }).toEqual({ workflowId, status: 'COMPLETED' });
      expect(described.typedSearchAttributes.get(DocId)).toBe(docId);
    }
    expect(await parsedEvents(api, 'document.parsed', docId)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ parse: 1, chunk_count: first.chunk_count }),
        expect.objectContaining({ parse: 2, chunk_count: second.chunk_count }),
      ]),
    );
  }, 240_000);

  it('takes another parser from the body, and checks it', async () => {
    const docId = await uploadLicence(api, kbId);
    await settledDocument(api, docId, 120_000);
    const bad = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: { parser_id: 'nope' } });
    expect(bad.json).toMatchObject({ code: 10001, data: { field: 'body.parser_id' } });
    const unknownField = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: { chunk_tokens: 5 } });
    expect(unknownField.json).toMatchObject({ code: 10001, data: { field: 'body.chunk_tokens' } });
    expect((await api.call('POST', '/v1/document/doc_doesnotexist/reparse', { key: api.adminKey, body: {} })).json.code).toBe(10004);

    const res = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: { parser_id: 'one' } });
    expect(res.json.data).toMatchObject({ status: 'parsing', parser_id: 'one', parse: 2 });
    const done = await settledDocument(api, docId, 120_000);
    expect(done).toMatchObject({ status: 'ready', parser_id: 'one', chunk_count: 1, parse: 2 });
    expect(await indexedChunks(api, 384, docId)).toEqual([expect.objectContaining({ parse: 2, staged: false })]);
  }, 240_000);

  it('deletes a document mid-reparse: the new parse is stopped and no chunk of either parse is left', async () => {
    const docId = await uploadLicence(api, kbId);
    await settledDocument(api, docId, 120_000);
    await api.call('PUT', `/v1/kb/${kbId}`, { key: api.adminKey, body: { chunk_tokens: 64 } });
    expect((await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: {} })).json.code).toBe(0);
    await eventually(async () => ((await indexedChunks(api, 384, docId)).some((c) => c.staged) ? true : undefined), 60_000);

    expect((await api.call('DELETE', `/v1/document/${docId}`, { key: api.adminKey })).json.code).toBe(0);
    const described = await api.services.temporal.workflow.getHandle(`document-ingest-${docId}-2`).describe();
    expect(described.status.name).toBe('TERMINATED');
    await eventually(async () => (worker.inFlightActivities() === 0 ? true : undefined), 90_000);
    expect(await indexedChunks(api, 384, docId)).toEqual([]);
  }, 240_000);
});

/**
 * A reparse that fails (here the embedding upstream refuses it): the document is `failed` with the
 * reason, and the chunks of its last successful parse still answer.
 */
describe('a reparse that fails', () => {
  const DIMENSION = 8;
  const QUESTION = 'licence';
  const upstream = new ScriptedUpstream();
  let api: TestApi;
  let worker: Worker;
  let refuse = false;

  beforeAll(async () => {
    const baseUrl = await upstream.start();
    upstream.reply = (request) => {
      const { input } = request.body as { input: string[] };
      // Only the document's chunks are refused: a search's question still gets its vector.
      if (refuse && input[0] !== QUESTION) return { status: 400, body: { error: { message: 'input rejected by policy' } } };
      return {
        body: { data: input.map((_, index) => ({ index, embedding: Array.from({ length: DIMENSION }, (__, i) => (i + 1) / DIMENSION) })) },
      };
    };
    api = await startTestApi({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: baseUrl,
      EMBEDDING_MODEL: 'scripted-embedder',
      EMBEDDING_DIMENSION: String(DIMENSION),
      RERANK_PROVIDER: 'none',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await upstream.stop();
  });

  it('ends failed with the reason, keeps the previous chunks searchable and records document.failed', async () => {
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'statutes' } })).json.data;
    const docId = await uploadLicence(api, kb.kb_id);
    const first = await settledDocument(api, docId);
    expect(first.status).toBe('ready');
    const before = await indexedChunks(api, DIMENSION, docId);
    expect(before).toHaveLength(first.chunk_count);

    refuse = true;
    expect((await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: {} })).json.code).toBe(0);
    const failed = await settledDocument(api, docId);
    expect(failed).toMatchObject({
      status: 'failed',
      parse: 2,
      chunk_count: first.chunk_count,
      error: { reason: 'embedding_failed' },
    });
    expect((await indexedChunks(api, DIMENSION, docId)).map((c) => c.id).sort()).toEqual(before.map((c) => c.id).sort());
    const search = await api.call('POST', '/v1/chunk/search', {
      key: api.adminKey,
      body: { question: QUESTION, kb_ids: [kb.kb_id], doc_ids: [docId], similarity_threshold: 0 },
    });
    expect(search.json.data.chunks.length).toBeGreaterThan(0);
    expect(await parsedEvents(api, 'document.failed', docId)).toEqual([expect.objectContaining({ parse: 2, reason: 'embedding_failed' })]);

    // A reparse that succeeds again replaces them.
    refuse = false;
    expect((await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: {} })).json.code).toBe(0);
    const third = await settledDocument(api, docId);
    expect(third).toMatchObject({ status: 'ready', parse: 3, chunk_count: first.chunk_count });
    const now = await indexedChunks(api, DIMENSION, docId);
    expect(now).toHaveLength(first.chunk_count);
    expect(now.every((c) => c.parse === 3 && !c.staged)).toBe(true);
  });
});
