import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startDelayingProxy } from '../support/delaying-proxy';
import { settledDocument } from '../support/documents';
import { startTestWorker } from '../support/worker';

/**
 * GET /v1/document/{doc_id}/chunks on the real stack: the worker parses with the real parsers and
 * the local model, through a proxy that holds each of its bulk requests to Elasticsearch for a
 * while, so a document stays `parsing` long enough to be read part-way.
 */
const BULK_DELAY_MS = 1_000;

let api: TestApi;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let slowIndex: Awaited<ReturnType<typeof startDelayingProxy>>;
let kbId: string;

beforeAll(async () => {
  api = await startTestApi({ RATE_LIMIT_DEFAULT_PER_MIN: '100000', RATE_LIMIT_UPLOADS_PER_MIN: '1000' });
  slowIndex = await startDelayingProxy(api.config.ELASTICSEARCH_URL, (method, path) =>
    method === 'POST' && path.includes('/_bulk') ? BULK_DELAY_MS : 0,
  );
  worker = await startTestWorker(api, { dispatcher: false, ingestBatchSize: 4, elasticsearchUrl: slowIndex.url });
  const kb = await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'viewer', chunk_tokens: 64, overlap_tokens: 0 } });
  expect(kb.json.code).toBe(0);
  kbId = kb.json.data.kb_id;
});
afterAll(async () => {
  await worker?.stop();
  await slowIndex?.close();
  await api?.close();
});

interface Chunk {
  chunk_id: string;
  position: number;
  content: string;
  section_path: string[];
  role: string | null;
  page: number | null;
  tokens: number;
  parse: number;
}

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'documents', name));
const chunks = async (docId: string, query = '', key = api.adminKey) => api.call('GET', `/v1/document/${docId}/chunks${query}`, { key });
const upload = async (name: string, bytes: Buffer) => {
  const up = await api.upload('/v1/document', api.adminKey, { kb_id: kbId, parser_id: 'naive' }, { name, bytes });
  expect(up.json.code).toBe(0);
  return up.json.data.doc_id as string;
};
/** Every chunk, page after page of 100. */
async function allChunks(docId: string): Promise<{ items: Chunk[]; total: number }> {
  const items: Chunk[] = [];
  for (let page = 1; ; page++) {
    const res = await chunks(docId, `?page=${page}&page_size=100`);
    expect(res.json.code).toBe(0);
    items.push(...res.json.data.items);
    if (res.json.data.items.length < 100) return { items, total: res.json.data.total };
  }
}
const positions = (items: Chunk[]) => items.map((c) => c.position);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

it("lists a ready document's chunks in document order, with what the index keeps of each, page by page", async () => {
  const docId = await upload('guide.md', fixture('guide.md'));
  const doc = await settledDocument(api, docId);
  expect(doc.status).toBe('ready');
  const { items, total } = await allChunks(docId);
  expect(total).toBe(doc.chunk_count);
  expect(positions(items)).toEqual(range(0, doc.chunk_count));
  expect(new Set(items.map((c) => c.chunk_id)).size).toBe(items.length);
  for (const c of items) {
    expect(c.content.trim()).not.toBe('');
    expect(c.tokens).toBeGreaterThan(0);
    expect(c.parse).toBe(1);
    expect(c.page).toBeNull();
  }
  // Markdown headings are the section path; their tokens add up to the document's.
  expect(items.some((c) => c.section_path.length > 0)).toBe(true);
  expect(items.reduce((sum, c) => sum + c.tokens, 0)).toBe(doc.progress.token_count);

  // The chunks are the ones search answers with.
  const search = await api.call('POST', '/v1/chunk/search', {
    key: api.adminKey,
    body: { question: 'rolling back a deployment', kb_ids: [kbId], doc_ids: [docId], top_k: 3 },
  });
  const hit = search.json.data.chunks[0];
  expect(items[hit.position]).toMatchObject({ chunk_id: hit.chunk_id, content: hit.content, section_path: hit.section_path });

  // Pages are ranges of positions; past the end is an empty page with the same total.
  const second = await chunks(docId, '?page=2&page_size=2');
  expect(second.json.data).toMatchObject({ page: 2, page_size: 2, total });
  expect(positions(second.json.data.items)).toEqual([2, 3]);
  expect(second.json.data.items).toEqual(items.slice(2, 4));
  const past = await chunks(docId, `?page=${total + 1}&page_size=1`);
  expect(past.json.data).toMatchObject({ items: [], total });
  const defaults = await chunks(docId);
  expect(defaults.json.data).toMatchObject({ page: 1, page_size: 20 });
  expect(positions(defaults.json.data.items)).toEqual(range(0, Math.min(20, total)));
});

it('gives the page of each chunk of a PDF', async () => {
  const docId = await upload('report.pdf', fixture('report.pdf'));
  expect((await settledDocument(api, docId)).status).toBe('ready');
  const { items } = await allChunks(docId);
  expect(items.length).toBeGreaterThan(0);
  expect(items.every((c) => Number.isInteger(c.page) && c.page! >= 1)).toBe(true);
  expect(items[0]!.page).toBe(1);
});

it("answers 10004 for another tenant's document or none, and bounds the page size", async () => {
  const docId = await upload('guide.md', fixture('guide.md'));
  const stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] });
  expect((await chunks(docId, '', stranger)).json).toMatchObject({ code: 10004 });
  expect((await chunks('doc_doesnotexist')).json).toMatchObject({ code: 10004 });
  expect((await chunks('not-an-id')).json).toMatchObject({ code: 10004 });
  expect((await chunks(docId, '?page_size=101')).json).toMatchObject({ code: 10001, data: { field: 'query.page_size' } });
  expect((await chunks(docId, '?page=0')).json).toMatchObject({ code: 10001, data: { field: 'query.page' } });
  expect((await chunks(docId, '?cursor=x')).json).toMatchObject({ code: 10001, data: { field: 'query.cursor' } });
  const member = await consoleToken({ tenant_id: 'default', sub: 'm', roles: ['member'] });
  expect((await chunks(docId, '', member)).json.code).toBe(0);
});

it("answers the chunks indexed so far while the document is parsed, and the previous parse's during a reparse", async () => {
  // About 80 chunks of 64 tokens, indexed 4 at a time, each bulk request held for a second.
  const text = Array.from({ length: 300 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog by the river.`).join('\n');
  const docId = await upload('long.txt', Buffer.from(text));

  const partial = await eventually(async () => {
    const res = await chunks(docId, '?page=1&page_size=100');
    const d = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
    return res.json.data.total >= 8 && d.status === 'parsing' ? { listed: res.json.data, doc: d } : undefined;
  }, 60_000);
  // A prefix of the document, in order.
  expect(positions(partial.listed.items)).toEqual(range(0, Math.min(100, partial.listed.total)));
  expect(partial.listed.items.every((c: Chunk) => c.parse === 1)).toBe(true);

  const ready = await settledDocument(api, docId, 180_000);
  expect(ready.status).toBe('ready');
  expect(partial.listed.total).toBeLessThan(ready.chunk_count);
  // A deep page is a range of positions like the first.
  const last = Math.ceil(ready.chunk_count / 10);
  const deep = await chunks(docId, `?page=${last}&page_size=10`);
  expect(deep.json.data.total).toBe(ready.chunk_count);
  expect(positions(deep.json.data.items)).toEqual(range((last - 1) * 10, ready.chunk_count));
  const first = await allChunks(docId);
  expect(first.total).toBe(ready.chunk_count);

  // A reparse with larger chunks: the previous parse's chunks are listed until it succeeds.
  expect((await api.call('PUT', `/v1/kb/${kbId}`, { key: api.adminKey, body: { chunk_tokens: 256 } })).json.code).toBe(0);
  const reparse = await api.call('POST', `/v1/document/${docId}/reparse`, { key: api.adminKey, body: {} });
  expect(reparse.json.data).toMatchObject({ status: 'parsing', parse: 2 });
  await eventually(async () => {
    const d = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
    return d.progress.chunks_indexed >= 4 || d.status !== 'parsing' ? true : undefined;
  }, 60_000);
  const during = await chunks(docId, '?page=1&page_size=100');
  const duringDoc = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
  expect(duringDoc).toMatchObject({ status: 'parsing', parse: 2, chunk_count: ready.chunk_count });
  expect(during.json.data.total).toBe(ready.chunk_count);
  expect(during.json.data.items).toEqual(first.items.slice(0, 100));

  const reparsed = await settledDocument(api, docId, 180_000);
  expect(reparsed).toMatchObject({ status: 'ready', parse: 2 });
  const second = await allChunks(docId);
  expect(second.total).toBe(reparsed.chunk_count);
  expect(second.total).toBeLessThan(first.total);
  expect(positions(second.items)).toEqual(range(0, reparsed.chunk_count));
  expect(second.items.every((c) => c.parse === 2)).toBe(true);
}, 240_000); // two parses of a long document, each bulk request held a second: well over 60 s on a loaded machine
