import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_FILE_TEXT_BYTES } from '../../common/schemas/files';
import { countTokens } from '../../common/tokens';
import { consoleToken, startTestApi, type TestApi } from '../support/api';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'documents', name));
const MAX_UPLOAD = 200_000;

/** Attachment files: upload with text extraction, read, delete, and the texts completions read. */
describe('attachment files', () => {
  let api: TestApi;
  const storedFiles = () => api.services.mongo.db.collection('files').countDocuments({});

  beforeAll(async () => {
    // Uploads have their own rate family; a ceiling apart from the default shows it is the one applied.
    api = await startTestApi({
      MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
      RATE_LIMIT_UPLOADS_PER_MIN: '1000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const upload = (name: string, bytes = fixture(name), type?: string, key = api.adminKey) =>
    api.upload('/v1/files', key, {}, { name, bytes, type });
  const textOf = async (fileId: string) => (await api.services.files.getTexts('default', [fileId]))[0]!;

  it('extracts and stores the text of a text file, in the uploads rate family', async () => {
    const bytes = fixture('regulation.txt');
    const res = await upload('regulation.txt', bytes, 'text/plain');
    expect(res.json.code).toBe(0);
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    const file = res.json.data;
    expect(file).toMatchObject({
      name: 'regulation.txt',
      content_type: 'text/plain',
      format: 'text',
      size_bytes: bytes.length,
      truncated: false,
    });
    expect(file.file_id).toMatch(/^fil_[A-Za-z0-9]{20}$/);
    expect(file.text).toBeUndefined();

    const { text, token_count } = await textOf(file.file_id);
    for (const words of [
      'Regulation on Shared Workspaces',
      'Desks are booked at most 14 days ahead.',
      'Phone calls are not allowed in quiet zones.',
    ]) {
      expect(text).toContain(words);
    }
    expect(file.text_preview).toBe(text.slice(0, 200));
    expect(file.text_preview.length).toBe(Math.min(200, text.length));
    expect(token_count).toBe(countTokens(text));
    expect(file.token_count).toBe(token_count);

    const got = await api.call('GET', `/v1/files/${file.file_id}`, { key: api.adminKey });
    expect(got.json).toMatchObject({ code: 0, data: file });
    expect(got.headers.get('x-ratelimit-limit')).toBe('100000');
  });

  it('keeps the structure of Markdown, and reads a real PDF and DOCX', async () => {
    const md = (await upload('guide.md', undefined, 'text/markdown')).json.data;
    expect(md.format).toBe('markdown');
    const guide = await textOf(md.file_id);
    expect(guide.text).toContain('# Deploying the Service');
    expect(guide.text).toContain('## Prerequisites');
    expect(guide.text).toContain('- Node.js 20 or later');
    expect(guide.text).not.toContain('author: Platform Team');

    const pdf = (await upload('report.pdf')).json.data;
    expect(pdf).toMatchObject({ format: 'pdf', size_bytes: fixture('report.pdf').length, truncated: false });
    expect((await textOf(pdf.file_id)).text).toContain('Quarterly Field Report');

    const docx = (await upload('handbook.docx')).json.data;
    expect(docx).toMatchObject({ format: 'docx', truncated: false });
    const handbook = await textOf(docx.file_id);
    expect(handbook.text).toMatch(/\| .+ \| /);
    expect(handbook.token_count).toBeGreaterThan(10);
  });

  it('refuses unsupported, encrypted, corrupt and empty files with 10001 and the reason, storing nothing', async () => {
    const before = await storedFiles();
    const cases = [
      ['random.bin', fixture('random.bin'), 'unsupported'],
      ['encrypted.pdf', fixture('encrypted.pdf'), 'encrypted'],
      ['encrypted.docx', fixture('encrypted.docx'), 'encrypted'],
      ['corrupt.pdf', fixture('corrupt.pdf'), 'corrupt'],
      ['scanned.pdf', fixture('scanned.pdf'), 'empty'],
      ['empty.txt', Buffer.alloc(0), 'empty'],
    ] as const;
    for (const [name, bytes, reason] of cases) {
      const res = await upload(name, bytes);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.file', reason } });
    }
    expect((await upload('random.bin')).json.message).toContain('unsupported file format');
    expect(await storedFiles()).toBe(before);
  });

  it('refuses a file over MAX_UPLOAD_BYTES and malformed requests with 10001, storing nothing', async () => {
    const before = await storedFiles();
    const tooLarge = await upload('big.txt', Buffer.alloc(MAX_UPLOAD + 1, 'a'));
    expect(tooLarge.json).toMatchObject({ code: 10001, data: { field: 'body.file', max_bytes: MAX_UPLOAD } });
    const noFile = await api.upload('/v1/files', api.adminKey, {});
    expect(noFile.json).toMatchObject({ code: 10001, data: { field: 'body.file' } });
    const extraField = await api.upload('/v1/files', api.adminKey, { purpose: 'x' }, { name: 'a.txt', bytes: Buffer.from('hello') });
    expect(extraField.json.code).toBe(10001);
    const asJson = await api.call('POST', '/v1/files', { key: api.adminKey, body: { file: 'hello' } });
    expect(asJson.json.code).toBe(10001);
    const noKey = await api.upload('/v1/files', 'combo_bad', {}, { name: 'a.txt', bytes: Buffer.from('hello') });
    expect(noKey.json.code).toBe(10002);
    expect(await storedFiles()).toBe(before);
  });

  it('cuts text beyond 2 MB at a character boundary and marks it truncated', async () => {
    const line = 'Grüße aus dem Büro — 東京 ✓ numbered line\n';
    const bytes = Buffer.from(line.repeat(Math.ceil((MAX_FILE_TEXT_BYTES * 1.2) / Buffer.byteLength(line))));
    const file = await api.services.commands.files.upload({ tenantId: 'default', name: 'long.txt', contentType: 'text/plain', bytes });
    expect(file.truncated).toBe(true);
    const { text, token_count } = await textOf(file.file_id);
    const kept = Buffer.byteLength(text);
    expect(kept).toBeLessThanOrEqual(MAX_FILE_TEXT_BYTES);
    expect(kept).toBeGreaterThan(MAX_FILE_TEXT_BYTES - 4);
    expect(text).not.toContain('\uFFFD');
    expect(bytes.toString('utf8').startsWith(text)).toBe(true);
    // Counted in pieces, the total is the count of the whole.
    expect(token_count).toBe(countTokens(text));
  });

  it('gets and deletes a file; another tenant sees none of it', async () => {
    const file = (await upload('notes.txt', Buffer.from('Call the supplier on Monday.'))).json.data;
    const stranger = await consoleToken({ tenant_id: 'elsewhere', sub: 'x', roles: ['admin'] });
    expect((await api.call('GET', `/v1/files/${file.file_id}`, { key: stranger })).json.code).toBe(10004);
    expect((await api.call('DELETE', `/v1/files/${file.file_id}`, { key: stranger })).json.code).toBe(10004);
    await expect(api.services.files.getTexts('elsewhere', [file.file_id])).rejects.toMatchObject({ code: 10004 });

    const member = await consoleToken({ tenant_id: 'default', sub: 'm', roles: ['member'] });
    expect((await api.call('GET', `/v1/files/${file.file_id}`, { key: member })).json.data.text_preview).toBe(
      'Call the supplier on Monday.',
    );
    expect((await api.call('DELETE', `/v1/files/${file.file_id}`, { key: member })).json).toMatchObject({
      code: 0,
      data: { deleted: true },
    });
    expect((await api.call('GET', `/v1/files/${file.file_id}`, { key: member })).json.code).toBe(10004);
    expect((await api.call('DELETE', `/v1/files/${file.file_id}`, { key: member })).json.code).toBe(10004);
    expect((await api.call('GET', '/v1/files/not-an-id', { key: member })).json).toMatchObject({ code: 10004, data: { resource: 'file' } });
  });

  it('gives completions the texts in the order asked, naming the first unknown id', async () => {
    const a = (await upload('a.txt', Buffer.from('First attachment.'))).json.data;
    const b = (await upload('b.md', Buffer.from('# Second\n\nattachment body'))).json.data;
    const texts = await api.services.files.getTexts('default', [b.file_id, a.file_id]);
    expect(texts).toEqual([
      { file_id: b.file_id, name: 'b.md', text: '# Second\n\nattachment body', token_count: countTokens('# Second\n\nattachment body') },
      { file_id: a.file_id, name: 'a.txt', text: 'First attachment.', token_count: countTokens('First attachment.') },
    ]);
    const unknown = 'fil_00000000000000000000';
    await expect(api.services.files.getTexts('default', [a.file_id, unknown, 'fil_11111111111111111111'])).rejects.toMatchObject({
      code: 10004,
      details: { resource: 'file', id: unknown },
    });
    await expect(api.services.files.assertExist('default', [a.file_id, b.file_id])).resolves.toBeUndefined();
    await expect(api.services.files.assertExist('default', [unknown])).rejects.toMatchObject({ code: 10004 });
  });
});
