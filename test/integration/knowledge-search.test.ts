import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startTestWorker } from '../support/worker';

/**
 * Search parameters and knowledge-base deletion on the real stack (worker with the local MiniLM
 * model, Elasticsearch). Each document is one short paragraph, so one chunk.
 */
describe('knowledge search parameters and knowledge-base deletion', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let kbA: string;
  let kbB: string;
  const docs: Record<string, string> = {};

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, body });
  const createKb = async (name: string) => (await call('POST', '/v1/kb', { name })).json.data.kb_id as string;
  async function ingest(kbId: string, name: string, text: string): Promise<string> {
    const up = await api.upload('/v1/document', api.adminKey, { kb_id: kbId }, { name, bytes: Buffer.from(text), type: 'text/plain' });
    expect(up.json.code).toBe(0);
    const doc = await eventually(async () => {
      const d = (await call('GET', `/v1/document/${up.json.data.doc_id}`)).json.data;
      return d.status === 'parsing' ? undefined : d;
    }, 60_000);
    expect(doc.status).toBe('ready');
    return doc.doc_id;
  }
  type Chunk = {
    chunk_id: string;
    doc_id: string;
    kb_id: string;
    similarity: number;
    vector_similarity: number;
    term_similarity: number;
    rerank_score: number | null;
  };
  async function search(body: Record<string, unknown>): Promise<{ chunks: Chunk[]; total: number; reranker: string | null }> {
    const res = await call('POST', '/v1/chunk/search', { kb_ids: [kbA, kbB], ...body });
    expect(res.json.code).toBe(0);
    return res.json.data;
  }
  const ids = (chunks: Chunk[]) => chunks.map((c) => c.doc_id);

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_UPLOADS_PER_MIN: '1000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
    worker = await startTestWorker(api, { dispatcher: false });
    kbA = await createKb('Coast');
    kbB = await createKb('Kitchen and sea');
    const texts: Array<[string, string, string]> = [
      [kbA, 'lighthouse', 'The lighthouse keeper climbs the tower every evening to light the lamp that guides ships past the rocks.'],
      [kbA, 'billing', 'Error XQ7731 appears when the billing export job fails; rerun the export after clearing the cache.'],
      [kbB, 'harbour', 'Vessels approaching the harbour at night rely on beacons to avoid running aground on the reef.'],
      [kbB, 'sauce', 'Simmer the tomatoes with garlic and basil for twenty minutes to make a simple pasta sauce.'],
    ];
    for (const [kb, name, text] of texts) docs[name] = await ingest(kb, `${name}.txt`, text);
  }, 180_000); // a worker's start (workflows bundled) and four documents parsed and embedded in turn
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it('searches several knowledge bases at once, and only those named', async () => {
    const both = await search({ question: 'a light that guides ships at night', similarity_threshold: 0, rerank_top_n: 0 });
    expect(new Set(both.chunks.map((c) => c.kb_id))).toEqual(new Set([kbA, kbB]));
    expect(ids(both.chunks.slice(0, 2)).sort()).toEqual([docs.lighthouse, docs.harbour].sort());
    const onlyB = await search({ kb_ids: [kbB], question: 'a light that guides ships at night', similarity_threshold: 0 });
    expect(onlyB.chunks.map((c) => c.kb_id)).toEqual(onlyB.chunks.map(() => kbB));
    expect(ids(onlyB.chunks)).not.toContain(docs.lighthouse);
  });

  it('vector_similarity_weight and keyword_weight decide how the two parts combine', async () => {
    const question = 'XQ7731 boats';
    const base = { question, similarity_threshold: 0, rerank_top_n: 0 };
    const vectorOnly = await search({ ...base, vector_similarity_weight: 1, keyword_weight: 0 });
    for (const c of vectorOnly.chunks) expect(c.similarity).toBeCloseTo(c.vector_similarity, 5);
    const keywordOnly = await search({ ...base, keyword_weight: 1, vector_similarity_weight: 0 });
    for (const c of keywordOnly.chunks) expect(c.similarity).toBeCloseTo(c.term_similarity, 5);
    // Only the billing text has the code: by keywords alone it is the one match, the others score 0.
    expect(keywordOnly.chunks[0]!.doc_id).toBe(docs.billing);
    expect(keywordOnly.chunks.slice(1).every((c) => c.similarity === 0)).toBe(true);
    // One weight alone implies the other (1 - it); neither gives 0.7 / 0.3.
    const implied = await search({ ...base, keyword_weight: 0.4 });
    for (const c of implied.chunks) expect(c.similarity).toBeCloseTo(0.6 * c.vector_similarity + 0.4 * c.term_similarity, 5);
    const defaults = await search(base);
    for (const c of defaults.chunks) expect(c.similarity).toBeCloseTo(0.7 * c.vector_similarity + 0.3 * c.term_similarity, 5);
    // With no vector part, a threshold keeps only what matched the terms.
    const strict = await search({ ...base, keyword_weight: 1, vector_similarity_weight: 0, similarity_threshold: 0.5 });
    expect(ids(strict.chunks)).toEqual([docs.billing]);
    const bad = await call('POST', '/v1/chunk/search', { kb_ids: [kbA], question, keyword_weight: 0, vector_similarity_weight: 0 });
    expect(bad.json).toMatchObject({ code: 10001, data: { field: 'body.vector_similarity_weight' } });
  });

  it('similarity_threshold drops candidates below it, and total counts what is left', async () => {
    const question = 'tower lamp for ships';
    const all = await search({ question, similarity_threshold: 0, rerank_top_n: 0 });
    expect(all.total).toBe(4);
    const cut = (all.chunks[0]!.similarity + all.chunks[all.chunks.length - 1]!.similarity) / 2;
    const above = await search({ question, similarity_threshold: cut, rerank_top_n: 0 });
    const expected = all.chunks.filter((c) => c.similarity >= cut);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(4);
    expect(above.total).toBe(expected.length);
    expect(ids(above.chunks)).toEqual(ids(expected));
    expect((await search({ question, similarity_threshold: 1 })).chunks).toEqual([]);
  });

  it('top_k bounds the chunks returned, best first, without changing total', async () => {
    const question = 'pasta with tomatoes';
    const one = await search({ question, top_k: 1, similarity_threshold: 0, rerank_top_n: 0 });
    const three = await search({ question, top_k: 3, similarity_threshold: 0, rerank_top_n: 0 });
    expect(one.chunks).toHaveLength(1);
    expect(three.chunks).toHaveLength(3);
    expect(one.chunks[0]!.doc_id).toBe(docs.sauce);
    expect(three.chunks[0]!.chunk_id).toBe(one.chunks[0]!.chunk_id);
    expect([one.total, three.total]).toEqual([4, 4]);
  });

  it('rerank_top_n re-scores that many best candidates, which lead by the mean of similarity and rerank_score; 0 turns it off', async () => {
    const question = 'ships and the light that keeps them off the rocks';
    const off = await search({ question, similarity_threshold: 0, rerank_top_n: 0 });
    expect(off.reranker).toBeNull();
    expect(off.chunks.every((c) => c.rerank_score === null)).toBe(true);
    const sims = off.chunks.map((c) => c.similarity);
    expect(sims).toEqual([...sims].sort((a, b) => b - a));

    const two = await search({ question, similarity_threshold: 0, rerank_top_n: 2 });
    expect(two.reranker).not.toBeNull();
    expect(two.chunks.map((c) => c.rerank_score !== null)).toEqual([true, true, false, false]);
    // The two re-scored are the two best by similarity, ordered by the mean; the rest keep their order.
    expect(new Set(ids(two.chunks.slice(0, 2)))).toEqual(new Set(ids(off.chunks.slice(0, 2))));
    const mean = (c: Chunk) => (c.similarity + c.rerank_score!) / 2;
    expect(mean(two.chunks[0]!)).toBeGreaterThanOrEqual(mean(two.chunks[1]!));
    expect(ids(two.chunks.slice(2))).toEqual(ids(off.chunks.slice(2)));

    const all = await search({ question, similarity_threshold: 0, rerank_top_n: 10 });
    expect(all.chunks.every((c) => c.rerank_score !== null)).toBe(true);
  });

  it('deleting a knowledge base removes its documents, stored file parts and indexed chunks, and nothing else', async () => {
    const kbC = await createKb('Temporary');
    const docC = await ingest(kbC, 'temp.txt', 'The lighthouse on the northern cape was automated in 1989 and its keeper retired.');
    const db = api.services.mongo.db;
    const chunkCount = async (filter: Record<string, string>) => {
      await api.services.es.indices.refresh({ index: `${api.config.ELASTICSEARCH_INDEX_PREFIX}-chunks-*` });
      const res = await api.services.es.count({
        index: `${api.config.ELASTICSEARCH_INDEX_PREFIX}-chunks-*`,
        query: { bool: { filter: Object.entries(filter).map(([k, v]) => ({ term: { [k]: v } })) } },
      });
      return res.count;
    };
    expect(await db.collection('documents').countDocuments({ kb_id: kbC })).toBe(1);
    expect(await db.collection('document_file_parts').countDocuments({ doc_id: docC })).toBeGreaterThan(0);
    expect(await chunkCount({ kb_id: kbC })).toBeGreaterThan(0);
    const before = {
      docs: await db.collection('documents').countDocuments({ kb_id: { $in: [kbA, kbB] } }),
      chunks: await chunkCount({ kb_id: kbA }),
    };

    expect((await call('DELETE', `/v1/kb/${kbC}`)).json).toMatchObject({ code: 0, data: { deleted: true } });

    expect(await db.collection('documents').countDocuments({ kb_id: kbC })).toBe(0);
    expect(await db.collection('document_file_parts').countDocuments({ doc_id: docC })).toBe(0);
    expect(await chunkCount({ kb_id: kbC })).toBe(0);
    expect(await chunkCount({ doc_id: docC })).toBe(0);
    expect((await call('GET', `/v1/kb/${kbC}`)).json.code).toBe(10004);
    expect((await call('GET', `/v1/document/${docC}`)).json.code).toBe(10004);
    expect((await call('POST', '/v1/chunk/search', { kb_ids: [kbC], question: 'lighthouse' })).json.code).toBe(10004);
    // The other knowledge bases are untouched.
    expect(await db.collection('documents').countDocuments({ kb_id: { $in: [kbA, kbB] } })).toBe(before.docs);
    expect(await chunkCount({ kb_id: kbA })).toBe(before.chunks);
  });
});
