import { startTestApi, type TestApi } from '../support/api';
import { settledDocument, uploadLicence } from '../support/documents';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const DIMENSION = 8;

/**
 * An embedding upstream that refuses the input after some batches were already indexed: the
 * document ends `failed` with the reason, and the batches indexed before leave the index again.
 */
describe('a document whose embedding is refused mid-way', () => {
  const upstream = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;

  beforeAll(async () => {
    const baseUrl = await upstream.start();
    api = await startTestApi({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: baseUrl,
      EMBEDDING_MODEL: 'scripted-embedder',
      EMBEDDING_DIMENSION: String(DIMENSION),
      RERANK_PROVIDER: 'none',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false, ingestBatchSize: 2 });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await upstream.stop();
  });

  it('ends failed with embedding_failed and leaves no chunk searchable', async () => {
    let answered = 0;
    upstream.reply = (request) => {
      const { input } = request.body as { input: string[] };
      // Three batches go through, then the upstream refuses (a 4xx is not retried).
      if (answered++ >= 3) return { status: 400, body: { error: { message: 'input rejected by policy' } } };
      return {
        body: { data: input.map((_, index) => ({ index, embedding: Array.from({ length: DIMENSION }, (__, i) => (i + 1) / DIMENSION) })) },
      };
    };
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'statutes', chunk_tokens: 64, overlap_tokens: 0 } }))
      .json.data;
    const docId = await uploadLicence(api, kb.kb_id);
    const doc = await settledDocument(api, docId);
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatchObject({ reason: 'embedding_failed' });
    expect(doc.error.message).toContain('input rejected by policy');
    expect(doc.progress.stage).toBe('failed');
    // The batches before the refusal were indexed (the upstream answered them) ...
    expect(answered).toBe(4);
    expect(doc.progress.chunks_indexed).toBeGreaterThan(0);

    // ... and are gone from the index again.
    const index = api.services.chunkIndex.indexFor(DIMENSION);
    await api.services.es.indices.refresh({ index });
    const left = await api.services.es.count({ index, query: { term: { doc_id: docId } } });
    expect(left.count).toBe(0);
  });
});
