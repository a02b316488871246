import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { killProcess, spawnWorkerProcess } from '../support/worker-process';

/**
 * A worker killed (SIGKILL) while a document is being embedded and indexed: another worker takes
 * the workflow over and the index ends with exactly the document's chunks, each once.
 */
describe('document parsing survives a killed worker', () => {
  let api: TestApi;
  beforeAll(async () => {
    // The test polls the document every 50 ms for a while: no rate ceiling in the way.
    api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('resumes on another worker with no chunk missing and none twice', async () => {
    const kb = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'statutes', chunk_tokens: 64, overlap_tokens: 0 } }))
      .json.data;
    // Batches of two chunks keep the parse going long enough to kill the worker mid-way.
    const first = await spawnWorkerProcess(api.config, { INGEST_BATCH_SIZE: '2' });
    const bytes = readFileSync(join(__dirname, '..', 'fixtures', 'texts', 'GPL-3'));
    const up = await api.upload('/v1/document', api.adminKey, { kb_id: kb.kb_id, parser_id: 'naive' }, { name: 'GPL-3.txt', bytes });
    const docId = up.json.data.doc_id;

    const midway = await eventually(async () => {
      const doc = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
      return doc.progress.chunks_indexed > 0 ? doc : undefined;
    }, 60_000);
    await killProcess(first);
    expect(midway.status).toBe('parsing');
    expect(midway.progress.chunks_indexed).toBeLessThan(midway.progress.chunks_total);

    const second = await spawnWorkerProcess(api.config, { INGEST_BATCH_SIZE: '2' });
    try {
      const done = await eventually(async () => {
        const doc = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
        return doc.status === 'parsing' ? undefined : doc;
      }, 150_000);
      expect(done.status).toBe('ready');
      const total = done.progress.chunks_total as number;
      expect(done.chunk_count).toBe(total);

      const index = api.services.chunkIndex.indexFor(384);
      await api.services.es.indices.refresh({ index });
      const hits = await api.services.es.search<{ position: number }>({
        index,
        size: 1000,
        _source: ['position'],
        query: { term: { doc_id: docId } },
      });
      const positions = hits.hits.hits.map((h) => h._source!.position).sort((a, b) => a - b);
      expect(positions).toEqual(Array.from({ length: total }, (_, i) => i));
    } finally {
      await killProcess(second, 'SIGTERM');
    }
  }, 240_000);
});
