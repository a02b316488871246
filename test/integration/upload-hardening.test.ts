import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import iconv from 'iconv-lite';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { docxBomb, docxWithText } from '../support/office-files';
import { killProcess, spawnApiProcess, spawnWorkerProcess } from '../support/worker-process';

/** A zip bomb shaped as a Word document: a few hundred KB that unpack to 200 MB. */
const BOMB_BYTES = 200 * 1024 * 1024;

const LEGACY_TEXTS = [
  ['GBK', 'gbk', '这是一份简体中文的测试文件。出租人应当按照约定将房屋交付承租人，并保证房屋及其附属设施符合安全和居住要求。'],
  ['Shift-JIS', 'shift_jis', 'これは日本語のテストファイルです。賃貸人は、約束に従って建物を賃借人に引き渡さなければなりません。'],
  ['Windows-1252', 'windows-1252', 'Café crème brûlée — naïve façade, “quotes” cost €5. Größe: Köln, Zürich, São Paulo.'],
] as const;

/** multipart/form-data whose file part carries no Content-Type header, as some clients send it. */
function multipartWithoutType(fields: Record<string, string>, name: string, bytes: Buffer): { body: Buffer; type: string } {
  const boundary = '----combo-test-boundary';
  const parts: Buffer[] = Object.entries(fields).map(([field, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`),
  );
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

describe('uploads that used to break the service', () => {
  let api: TestApi;
  const storedFiles = () => api.services.mongo.db.collection('files').countDocuments({});

  beforeAll(async () => {
    api = await startTestApi({ RATE_LIMIT_UPLOADS_PER_MIN: '1000', RATE_LIMIT_DEFAULT_PER_MIN: '100000' });
  });
  afterAll(async () => {
    await api?.close();
  });

  const postRaw = async (url: string, path: string, { body, type }: { body: Buffer; type: string }) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.adminKey}`, 'content-type': type },
      body,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, json: (await res.json()) as any };
  };

  describe('as attachments (POST /v1/files)', () => {
    it('refuses a zip bomb with 10001 and reason too_large, storing nothing', async () => {
      const before = await storedFiles();
      const bytes = await docxBomb(BOMB_BYTES);
      const started = Date.now();
      const res = await api.upload('/v1/files', api.adminKey, {}, { name: 'bomb.docx', bytes });
      console.log(`figure: zip bomb (200 MB unpacked) refused by POST /v1/files in ${Date.now() - started} ms`);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code: 10001, data: { field: 'body.file', reason: 'too_large' } });
      expect(res.json.message).toMatch(/zip bomb/);
      expect(await storedFiles()).toBe(before);
    });

    it('stores the text of a file with NUL bytes without them', async () => {
      const bytes = Buffer.from('Invoice\0 42\0\n\nPaid in full.\0');
      const res = await api.upload('/v1/files', api.adminKey, {}, { name: 'nul.txt', bytes, type: 'text/plain' });
      expect(res.json.code).toBe(0);
      const [file] = await api.services.files.getTexts('default', [res.json.data.file_id]);
      expect(file!.text).toBe('Invoice 42\n\nPaid in full.');
    });

    it('accepts a file part without Content-Type, its format from the name and the content', async () => {
      const named = await postRaw(api.url, '/v1/files', multipartWithoutType({}, 'notes.md', Buffer.from('# Notes\n\nCall the supplier.')));
      expect(named.json).toMatchObject({
        code: 0,
        data: { name: 'notes.md', format: 'markdown', content_type: 'application/octet-stream' },
      });
      const unnamedFormat = await postRaw(
        api.url,
        '/v1/files',
        multipartWithoutType({}, 'upload', Buffer.from('{"order": 1001, "status": "shipped"}')),
      );
      expect(unnamedFormat.json).toMatchObject({ code: 0, data: { format: 'json' } });
    });

    it.each(LEGACY_TEXTS)('decodes %s text', async (_name, encoding, text) => {
      const res = await api.upload(
        '/v1/files',
        api.adminKey,
        {},
        { name: 'legacy.txt', bytes: iconv.encode(text, encoding), type: 'text/plain' },
      );
      expect(res.json.code).toBe(0);
      expect(res.json.data.text_preview).toBe(text);
    });
  });

  describe('as documents (POST /v1/document), parsed by the built worker', () => {
    let worker: ChildProcess;
    let kbId: string;
    beforeAll(async () => {
      worker = await spawnWorkerProcess(api.config);
      kbId = (await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'uploads' } })).json.data.kb_id;
    });
    afterAll(async () => {
      if (worker) await killProcess(worker, 'SIGTERM');
    });

    const settled = (docId: string) =>
      eventually(async () => {
        const doc = (await api.call('GET', `/v1/document/${docId}`, { key: api.adminKey })).json.data;
        return doc.status === 'parsing' ? undefined : doc;
      }, 120_000);

    it('fails a zip bomb as too_large, and parses the next document', async () => {
      const bytes = await docxBomb(BOMB_BYTES);
      const started = Date.now();
      const up = await api.upload('/v1/document', api.adminKey, { kb_id: kbId }, { name: 'bomb.docx', bytes });
      const doc = await settled(up.json.data.doc_id);
      console.log(`figure: zip bomb (200 MB unpacked) uploaded as a document ended failed ${Date.now() - started} ms after its upload`);
      expect(doc).toMatchObject({ status: 'failed', error: { reason: 'too_large' } });
      expect(doc.error.message).toMatch(/zip bomb/);

      const next = await api.upload(
        '/v1/document',
        api.adminKey,
        { kb_id: kbId },
        { name: 'after.docx', bytes: await docxWithText('The parse thread is free again.') },
      );
      expect((await settled(next.json.data.doc_id)).status).toBe('ready');
    });

    it('parses a part without Content-Type, NUL bytes and legacy encodings', async () => {
      const gbk = LEGACY_TEXTS[0];
      const text = `${gbk[2]}\0`;
      const up = await postRaw(api.url, '/v1/document', multipartWithoutType({ kb_id: kbId }, 'legacy.txt', iconv.encode(text, gbk[1])));
      expect(up.json.code).toBe(0);
      expect(await settled(up.json.data.doc_id)).toMatchObject({ status: 'ready', format: 'text' });
      const hits = await api.call('POST', '/v1/chunk/search', {
        key: api.adminKey,
        body: { question: '出租人', kb_ids: [kbId], top_k: 3 },
      });
      expect(hits.json.data.chunks.map((chunk: { content: string }) => chunk.content)).toContain(gbk[2]);
    });
  });

  describe('on the built API, whose parsing threads exist', () => {
    let apiProcess: { child: ChildProcess; url: string };
    beforeAll(async () => {
      apiProcess = await spawnApiProcess(api.config);
    });
    afterAll(async () => {
      if (apiProcess) await killProcess(apiProcess.child, 'SIGTERM');
    });

    it('keeps answering GET /v1/health while pathological files are extracted', async () => {
      const { url } = apiProcess;
      const upload = async (name: string, bytes: Buffer) => {
        const form = new FormData();
        form.append('file', new Blob([bytes]), name);
        const res = await fetch(`${url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${api.adminKey}` }, body: form });
        return (await res.json()) as { code: number; data: { token_count: number; reason?: string } };
      };
      let uploading = true;
      const answers: { status: number; sent: number; answered: number }[] = [];
      const polling = (async () => {
        while (uploading) {
          const sent = Date.now();
          const res = await fetch(`${url}/v1/health`);
          await res.text();
          answers.push({ status: res.status, sent, answered: Date.now() });
        }
      })();
      // One 2 MB run of letters without a space (random, so that it is not refused as a bomb).
      const run = await docxWithText(Array.from(randomBytes(2 * 1024 * 1024), (byte) => String.fromCharCode(97 + (byte % 26))).join(''));
      const bombBytes = await docxBomb(BOMB_BYTES);
      const started = Date.now();
      const [letters, longRun, bomb] = await Promise.all([
        upload('letters.txt', Buffer.alloc(300 * 1024, 'a')),
        upload('run.docx', run),
        upload('bomb.docx', bombBytes),
      ]);
      const finished = Date.now();
      const elapsed = finished - started;
      uploading = false;
      await polling;

      expect(letters).toMatchObject({ code: 0 });
      expect(letters.data.token_count).toBeGreaterThan((300 * 1024) / 16);
      expect(longRun).toMatchObject({ code: 0, data: { truncated: false } });
      expect(bomb).toMatchObject({ code: 10001, data: { reason: 'too_large' } });
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      // On the event loop, the extraction would have held every health call from its start until it
      // ended, just before the replies: none would be answered in the middle of the uploads. Off it, some
      // are, however few a saturated machine lets through (one is enough to tell the two apart).
      const middle = answers.filter((a) => a.answered > started + elapsed / 4 && a.answered < finished - elapsed / 4);
      expect(middle.length).toBeGreaterThanOrEqual(1);
      const latencies = answers.map((a) => a.answered - a.sent).sort((a, b) => a - b);
      const during = [started, ...answers.map((a) => a.answered).filter((t) => t > started && t < finished), finished];
      const longestGap = Math.max(...during.slice(1).map((t, i) => t - during[i]!));
      console.log(
        `figure: ${answers.length} GET /v1/health answered during ${elapsed} ms of pathological uploads (${middle.length} in its middle half); ` +
          `latency median ${latencies[Math.floor(latencies.length / 2)]} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]} ms, max ${latencies[latencies.length - 1]} ms; ` +
          `longest time without an answer ${longestGap} ms`,
      );
    }, 180_000); // building the files and extracting them took 45 s of jest's default 60 on an idle 2-core machine
  });
});
