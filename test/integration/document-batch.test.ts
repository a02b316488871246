import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { settledDocument } from '../support/documents';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const DIMENSION = 8;
const DOCUMENTS = 8;
/** The one document whose every text the upstream refuses. */
const REFUSED = 'doc3';

/** A small text whose every chunk names its document (`doc<n>`), so a request shows whose texts it carried. */
const smallText = (tag: string) =>
  Array.from(
    { length: 4 },
    (_, p) => `Paragraph ${p} of ${tag}. ${`The ${tag} licence grants the ${tag} holder rights number ${p} and duties. `.repeat(6)}`,
  ).join('\n\n');

const tagsOf = (input: string[]) => new Set(input.flatMap((text) => text.match(/\bdoc\d+\b/g) ?? []));

/**
 * Small documents of one knowledge base uploaded at once: the worker embeds and indexes them in
 * shared requests (activities/grouped-embeddings.ts, the chunk index's grouped bulk writes), and
 * each still gets its own status, progress and outcome event; a document the embedding upstream
 * refuses fails alone.
 */
describe('small documents parsed side by side', () => {
  const upstream = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;

  beforeAll(async () => {
    const baseUrl = await upstream.start();
    // A slow upstream: the documents' calls made while the first ones are answered wait and go together.
    upstream.reply = (request) => {
      const { input } = request.body as { input: string[] };
      if (tagsOf(input).has(REFUSED)) return { status: 400, body: { error: { message: 'input rejected by policy' } } };
      return {
        delayMs: 300,
        body: {
          data: input.map((_, index) => ({ index, embedding: Array.from({ length: DIMENSION }, (__, i) => (i + 1 + index) / DIMENSION) })),
        },
      };
    };
    api = await startTestApi({
      EMBEDDING_PROVIDER: 'openai',
      EMBEDDING_BASE_URL: baseUrl,
      EMBEDDING_MODEL: 'scripted-embedder',
      EMBEDDING_DIMENSION: String(DIMENSION),
      RERANK_PROVIDER: 'none',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      RATE_LIMIT_UPLOADS_PER_MIN: '1000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await upstream.stop();
  });

  it('shares upstream calls, and gives each document its own status, progress and event; the refused one fails alone', async () => {
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'batch', chunk_tokens: 64, overlap_tokens: 0 } })).json
      .data;
    const tags = Array.from({ length: DOCUMENTS }, (_, i) => `doc${i}`);
    const ids = await Promise.all(
      tags.map(
        async (tag) =>
          (
            await api.upload(
              '/v1/document',
              api.adminKey,
              { kb_id: kb.kb_id, parser_id: 'naive' },
              { name: `${tag}.txt`, bytes: Buffer.from(smallText(tag)), type: 'text/plain' },
            )
          ).json.data.doc_id as string,
      ),
    );
    const docs = await Promise.all(ids.map((id) => settledDocument(api, id)));

    // Some upstream call carried texts of several documents.
    expect(Math.max(...upstream.requests.map((r) => tagsOf((r.body as { input: string[] }).input).size))).toBeGreaterThan(1);

    const index = api.services.chunkIndex.indexFor(DIMENSION);
    for (const [i, doc] of docs.entries()) {
      if (tags[i] === REFUSED) {
        expect(doc).toMatchObject({ status: 'failed', error: { reason: 'embedding_failed' }, progress: { stage: 'failed' } });
        expect(doc.error.message).toContain('input rejected by policy');
        continue;
      }
      expect(doc).toMatchObject({ status: 'ready', progress: { stage: 'done', fraction: 1 } });
      expect(doc.chunk_count).toBeGreaterThan(1);
      expect(doc.progress).toMatchObject({ chunks_total: doc.chunk_count, chunks_indexed: doc.chunk_count });
      expect(doc.progress.token_count).toBeGreaterThan(0);
      // Ready means searchable: its own chunks, each with its own text, without a refresh of the test's.
      const own = await api.services.es.search<{ content: string; doc_id: string }>({
        index,
        size: 100,
        query: { term: { doc_id: doc.doc_id } },
      });
      expect(own.hits.hits).toHaveLength(doc.chunk_count);
      expect(own.hits.hits.every((h) => tagsOf([h._source!.content]).size === 1 && tagsOf([h._source!.content]).has(tags[i]!))).toBe(true);
    }
    await api.services.es.indices.refresh({ index });
    const refusedId = ids[tags.indexOf(REFUSED)]!;
    expect((await api.services.es.count({ index, query: { term: { doc_id: refusedId } } })).count).toBe(0);

    // One outcome event per document, each with its own figures.
    const logged = (event: string) =>
      eventually(async () => {
        const items = (await api.call('GET', `/v1/events?event=${event}&page_size=100`, { key: api.adminKey })).json.data.items as Array<{
          data: { doc_id: string; chunk_count?: number; reason?: string };
        }>;
        const expected = event === 'document.parsed' ? DOCUMENTS - 1 : 1;
        return items.length >= expected ? items : undefined;
      });
    const parsed = await logged('document.parsed');
    expect(parsed.map((e) => e.data.doc_id).sort()).toEqual(ids.filter((id) => id !== refusedId).sort());
    for (const e of parsed) expect(e.data.chunk_count).toBe(docs[ids.indexOf(e.data.doc_id)]!.chunk_count);
    const failed = await logged('document.failed');
    expect(failed).toEqual([expect.objectContaining({ data: expect.objectContaining({ doc_id: refusedId, reason: 'embedding_failed' }) })]);
  });
});
