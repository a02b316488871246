import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { startTestWorker } from '../support/worker';
import { FILE_PART_BYTES } from '../../stores/documents';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'documents', name));

/**
 * Knowledge bases end to end on the real stack: multipart upload into the database, the parsing workflow
 * on the real worker (real extraction, parsers and the local MiniLM model), Elasticsearch search.
 */
describe('knowledge bases, documents and hybrid search', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let kbId: string;

  beforeAll(async () => {
    // Uploads have their own rate family; a ceiling above the default shows it is the one applied.
    api = await startTestApi({
      MAX_UPLOAD_BYTES: String(2 * 1024 * 1024),
      RATE_LIMIT_UPLOADS_PER_MIN: '1000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false, ingestBatchSize: 8 });
    const kb = await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'Operations handbook' } });
    expect(kb.json.code).toBe(0);
    kbId = kb.json.data.kb_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  async function upload(name: string, fields: Record<string, string> = {}, type?: string) {
    return api.upload('/v1/document', api.adminKey, { kb_id: kbId, ...fields }, { name, bytes: fixture(name), type });
  }
  async function settled(docId: string) {
    return eventually(async () => {
      const doc = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
      return doc.status === 'parsing' ? undefined : doc;
    }, 60_000);
  }

  it('creates, reads, lists and updates a knowledge base with its recorded embedding model', async () => {
    const got = await api.call('GET', `/v1/kb/${kbId}`, { key: api.adminKey });
    expect(got.json.data).toMatchObject({
      name: 'Operations handbook',
      embedding_model: 'local:all-minilm-l6-v2',
      dimension: 384,
      parser_id: 'naive',
      chunk_tokens: 512,
      overlap_tokens: 64,
    });
    const list = await api.call('GET', '/v1/kb?page_size=10', { key: api.adminKey });
    expect(list.json.data.items.map((k: { kb_id: string }) => k.kb_id)).toContain(kbId);
    const updated = await api.call('PUT', `/v1/kb/${kbId}`, { key: api.adminKey, body: { description: 'runbooks' } });
    expect(updated.json.data.description).toBe('runbooks');

    const badOverlap = await api.call('PUT', `/v1/kb/${kbId}`, { key: api.adminKey, body: { chunk_tokens: 64 } });
    expect(badOverlap.json).toMatchObject({ code: 10001, data: { field: 'body.overlap_tokens' } });
    const badParser = await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'x', parser_id: 'nope' } });
    expect(badParser.json).toMatchObject({ code: 10001, data: { field: 'body.parser_id' } });
    const badModel = await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'x', embedding_model: 'openai:missing' } });
    expect(badModel.json.code).toBe(10001);
    const parsers = await api.call('GET', '/v1/kb/parsers', { key: api.adminKey });
    expect(parsers.json.data.items.map((p: { parser_id: string }) => p.parser_id)).toEqual(
      expect.arrayContaining(['naive', 'laws', 'paper', 'patent']),
    );
  });

  it('uploads into the database, parses on Temporal and makes the chunks searchable', async () => {
    const up = await upload('guide.md', {}, 'text/markdown');
    expect(up.status).toBe(200);
    expect(up.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(up.json.data).toMatchObject({ status: 'parsing', chunk_count: 0, kb_id: kbId, name: 'guide.md', format: 'markdown' });
    const doc = await settled(up.json.data.doc_id);
    expect(doc).toMatchObject({ status: 'ready', error: null, progress: { stage: 'done', fraction: 1 } });
    expect(doc.chunk_count).toBeGreaterThan(0);
    expect(doc.progress.token_count).toBeGreaterThan(0);
    expect(doc.progress.chunks_indexed).toBe(doc.chunk_count);
    // A parse this short records its progress with its outcome, in one write: all of it.
    expect(doc.progress.chunks_total).toBe(doc.chunk_count);
    expect(Date.parse(doc.progress.started_at)).toBeLessThanOrEqual(Date.parse(doc.progress.finished_at));
    expect(Date.parse(doc.progress.started_at)).toBeGreaterThanOrEqual(Date.parse(doc.created_at));

    const file = await api.services.documents.readFile(await api.services.documents.getDoc('default', doc.doc_id));
    expect(file.equals(fixture('guide.md'))).toBe(true);

    const search = await api.call('POST', '/v1/chunk/search', {
      key: api.adminKey,
      body: { question: 'rolling back a deployment', kb_ids: [kbId], top_k: 3 },
    });
    expect(search.json.code).toBe(0);
    const top = search.json.data.chunks[0];
    expect(top).toMatchObject({ doc_id: doc.doc_id, doc_name: 'guide.md', kb_id: kbId });
    expect(top.content.toLowerCase()).toContain('roll');
    expect(top.vector_similarity).toBeGreaterThan(0);
    expect(top.similarity).toBeGreaterThanOrEqual(0.2);
    expect(top.highlight).toContain('<em>');
    expect(search.json.data.doc_aggs[0]).toMatchObject({ doc_id: doc.doc_id });
    expect(search.json.data.reranker).toBe('local:hybrid(local:all-minilm-l6-v2)');
    expect(top.rerank_score).toBeGreaterThan(0);

    const docs = await api.call('GET', `/v1/kb/${kbId}/documents?status=ready`, { key: api.adminKey });
    expect(docs.json.data.items.map((d: { doc_id: string }) => d.doc_id)).toContain(doc.doc_id);
  });

  it('parses every supported format', async () => {
    const files = ['faq.html', 'handbook.docx', 'inventory.csv', 'orders.xlsx', 'report.pdf', 'service.json', 'regulation.txt'];
    const uploads = await Promise.all(files.map((f) => upload(f)));
    const done = await Promise.all(uploads.map((u) => settled(u.json.data.doc_id)));
    for (const [i, doc] of done.entries()) {
      expect({ file: files[i], status: doc.status, error: doc.error }).toEqual({ file: files[i], status: 'ready', error: null });
      expect(doc.chunk_count).toBeGreaterThan(0);
    }
    expect(done.map((d) => d.format)).toEqual(['html', 'docx', 'csv', 'xlsx', 'pdf', 'json', 'text']);
  }, 180_000); // seven formats parsed and embedded at once: a minute and more on a loaded machine

  it("splits with every parser through HTTP and keeps each parser's structure", async () => {
    const text = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'texts', name));
    const cases: Array<{ parser: string; file: string; bytes: Buffer; question: string; check(chunk: Record<string, unknown>): void }> = [
      {
        parser: 'naive',
        file: 'book.txt',
        bytes: text('book-keepers-island.txt'),
        question: 'the lighthouse keeper',
        check: (c) => expect(c.role).toBeNull(),
      },
      {
        parser: 'laws',
        file: 'tenancy.txt',
        bytes: text('tenancy-regulation.txt'),
        question: 'deposit returned to the tenant',
        check: (c) => expect((c.section_path as string[]).some((p) => /Article|Section|Chapter/.test(p))).toBe(true),
      },
      {
        parser: 'paper',
        file: 'paper.txt',
        bytes: text('paper-hybrid-retrieval.txt'),
        question: 'abstract of the paper',
        check: (c) => expect(typeof c.content).toBe('string'),
      },
      {
        parser: 'patent',
        file: 'patent.txt',
        bytes: text('patent-filter-monitor.txt'),
        question: 'controller compares the power drawn by the fan with the recorded value',
        check: (c) => expect(['claim', 'abstract', null]).toContain(c.role),
      },
      {
        parser: 'qa',
        file: 'faq.txt',
        bytes: text('faq-home-router.txt'),
        question: 'How do I reset the router to factory settings?',
        check: (c) => expect(c.role).toBe('qa'),
      },
      {
        parser: 'table',
        file: 'catalogue.csv',
        bytes: text('product-catalogue.csv'),
        question: 'replacement filter for the dehumidifier',
        check: (c) => expect(c.role).toBe('row'),
      },
      {
        parser: 'book',
        file: 'island.txt',
        bytes: text('book-keepers-island.txt'),
        question: 'the lighthouse keeper',
        check: (c) => expect((c.section_path as string[]).length).toBeGreaterThan(0),
      },
      {
        parser: 'manual',
        file: 'manual.txt',
        bytes: text('manual-dehumidifier.txt'),
        question: 'how to connect the drain hose',
        check: (c) => expect(typeof c.content).toBe('string'),
      },
      {
        parser: 'one',
        file: 'guide.md',
        bytes: fixture('guide.md'),
        question: 'deployment guide',
        check: (c) => expect(c.position).toBe(0),
      },
    ];
    const uploads = await Promise.all(
      cases.map((c) => api.upload('/v1/document', api.adminKey, { kb_id: kbId, parser_id: c.parser }, { name: c.file, bytes: c.bytes })),
    );
    for (const [i, u] of uploads.entries()) {
      const c = cases[i]!;
      const doc = await settled(u.json.data.doc_id);
      expect({ parser: c.parser, status: doc.status, error: doc.error }).toEqual({ parser: c.parser, status: 'ready', error: null });
      expect(doc.parser_id).toBe(c.parser);
      const found = await api.call('POST', '/v1/chunk/search', {
        key: api.adminKey,
        body: { question: c.question, kb_ids: [kbId], doc_ids: [doc.doc_id], similarity_threshold: 0, top_k: 3 },
      });
      expect(found.json.data.chunks.length).toBeGreaterThan(0);
      c.check(found.json.data.chunks[0]);
      if (c.parser === 'one') expect(doc.chunk_count).toBe(1);
    }
    const patentDoc = uploads[3]!.json.data.doc_id;
    const claims = await api.call('POST', '/v1/chunk/search', {
      key: api.adminKey,
      body: {
        question: 'method according to claim 1',
        kb_ids: [kbId],
        doc_ids: [patentDoc],
        similarity_threshold: 0,
        top_k: 20,
        rerank_top_n: 0,
      },
    });
    expect(
      claims.json.data.chunks.some(
        (c: { role: string; section_path: string[] }) => c.role === 'claim' && /Claim \d+/.test(c.section_path.join(' ')),
      ),
    ).toBe(true);
  }, 180_000); // a document per parser, parsed and embedded, then searched

  it('ends unreadable files in the failed state with the reason', async () => {
    const cases: Array<[string, string]> = [
      ['corrupt.pdf', 'corrupt'],
      ['encrypted.pdf', 'encrypted'],
      ['encrypted.docx', 'encrypted'],
      ['random.bin', 'unsupported'],
      ['scanned.pdf', 'empty'],
    ];
    const uploads = await Promise.all(cases.map(([f]) => upload(f)));
    for (const [i, u] of uploads.entries()) {
      const doc = await settled(u.json.data.doc_id);
      expect({ status: doc.status, reason: doc.error?.reason }).toEqual({ status: 'failed', reason: cases[i]![1] });
      expect(doc.error.message.length).toBeGreaterThan(0);
      expect(doc.chunk_count).toBe(0);
    }
  });

  it('refuses bad uploads before storing anything', async () => {
    const fileParts = api.services.mongo.db.collection('document_file_parts');
    const partsBefore = await fileParts.countDocuments();
    const before = (await api.call('GET', `/v1/kb/${kbId}/documents`, { key: api.adminKey })).json.data.total;
    const noFile = await api.upload('/v1/document', api.adminKey, { kb_id: kbId });
    expect(noFile.json).toMatchObject({ code: 10001, data: { field: 'body.file' } });
    const unknownKb = await api.upload(
      '/v1/document',
      api.adminKey,
      { kb_id: 'kb_doesnotexist' },
      { name: 'a.txt', bytes: Buffer.from('hello') },
    );
    expect(unknownKb.json.code).toBe(10004);
    const badParser = await upload('guide.md', { parser_id: 'nope' });
    expect(badParser.json).toMatchObject({ code: 10001, data: { field: 'body.parser_id' } });
    const tooBig = await api.upload(
      '/v1/document',
      api.adminKey,
      { kb_id: kbId },
      { name: 'big.txt', bytes: Buffer.alloc(3 * 1024 * 1024, 'a') },
    );
    expect(tooBig.json).toMatchObject({ code: 10001, data: { field: 'body.file' } });
    const json = await api.call('POST', '/v1/document', { key: api.adminKey, body: { kb_id: kbId } });
    expect(json.json.code).toBe(10001);
    const noKey = await api.upload('/v1/document', 'combo_bad', { kb_id: kbId }, { name: 'a.txt', bytes: Buffer.from('hello') });
    expect(noKey.json.code).toBe(10002);
    const after = (await api.call('GET', `/v1/kb/${kbId}/documents`, { key: api.adminKey })).json.data.total;
    expect(after).toBe(before);
    expect(await fileParts.countDocuments()).toBe(partsBefore);
  });

  it('validates search parameters and keeps tenants apart', async () => {
    const bad = await api.call('POST', '/v1/chunk/search', { key: api.adminKey, body: { question: 'x', kb_ids: [kbId], top_k: 0 } });
    expect(bad.json).toMatchObject({ code: 10001, data: { field: 'body.top_k' } });
    const weights = await api.call('POST', '/v1/chunk/search', {
      key: api.adminKey,
      body: { question: 'x', kb_ids: [kbId], vector_similarity_weight: 0, keyword_weight: 0 },
    });
    expect(weights.json.code).toBe(10001);
    const threshold = await api.call('POST', '/v1/chunk/search', {
      key: api.adminKey,
      body: { question: 'x', kb_ids: [kbId], similarity_threshold: 1.5 },
    });
    expect(threshold.json).toMatchObject({ code: 10001, data: { field: 'body.similarity_threshold' } });

    const other = await consoleToken({ tenant_id: 'other-tenant', sub: 'u1', roles: ['admin'] });
    const foreign = await api.call('POST', '/v1/chunk/search', { key: other, body: { question: 'roll back', kb_ids: [kbId] } });
    expect(foreign.json.code).toBe(10004);
    const ownKb = (await api.call('POST', '/v1/kb', { key: other, body: { name: 'theirs' } })).json.data.kb_id;
    const theirs = await api.call('POST', '/v1/chunk/search', {
      key: other,
      body: { question: 'roll back a deployment', kb_ids: [ownKb], similarity_threshold: 0 },
    });
    expect(theirs.json.data).toMatchObject({ chunks: [], total: 0 });
    const get = await api.call('GET', `/v1/kb/${kbId}`, { key: other });
    expect(get.json.code).toBe(10004);
  });

  it('stores a file larger than one part whole, and a delete mid-parse removes its bytes', async () => {
    const fileParts = api.services.mongo.db.collection('document_file_parts');
    const bytes = Buffer.from(
      Array.from({ length: 30_000 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog.\n`).join(''),
    );
    expect(bytes.length).toBeGreaterThan(FILE_PART_BYTES);
    const up = await api.upload('/v1/document', api.adminKey, { kb_id: kbId }, { name: 'long.txt', bytes });
    expect(up.json.code).toBe(0);
    const stored = await api.services.documents.getDoc('default', up.json.data.doc_id);
    expect(stored.file_parts).toBe(Math.ceil(bytes.length / FILE_PART_BYTES));
    expect((await api.services.documents.readFile(stored)).equals(bytes)).toBe(true);

    const del = await api.call('DELETE', `/v1/document/${stored._id}`, { key: api.adminKey });
    expect(del.json.code).toBe(0);
    expect(await fileParts.countDocuments({ doc_id: stored._id })).toBe(0);
    // A batch in flight at the delete is taken out by the parse itself once it sees the document gone.
    const question = { question: 'quick brown fox', kb_ids: [kbId], doc_ids: [stored._id], similarity_threshold: 0 };
    await eventually(
      async () => (await api.call('POST', '/v1/chunk/search', { key: api.adminKey, body: question })).json.data.total === 0 || undefined,
      20_000,
    );
  });

  it('deletes a document and its chunks leave the index', async () => {
    const up = await upload('regulation.txt', { parser_id: 'laws' });
    const doc = await settled(up.json.data.doc_id);
    expect(doc.status).toBe('ready');
    const question = { question: 'obligations of the operator', kb_ids: [kbId], doc_ids: [doc.doc_id], similarity_threshold: 0 };
    const before = await api.call('POST', '/v1/chunk/search', { key: api.adminKey, body: question });
    expect(before.json.data.total).toBeGreaterThan(0);
    const del = await api.call('DELETE', `/v1/document/${doc.doc_id}`, { key: api.adminKey });
    expect({ ...del.json, trace_id: undefined }).toMatchObject({ code: 0, data: { deleted: true } });
    const after = await api.call('POST', '/v1/chunk/search', { key: api.adminKey, body: question });
    expect(after.json.data.total).toBe(0);
    expect((await api.call('GET', `/v1/document/${doc.doc_id}`, { key: api.adminKey })).json.code).toBe(10004);
  });
});
