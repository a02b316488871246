import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractAttachment } from '../../knowledge/extract-attachment';
import { parseDocument, type ParseJob } from '../../knowledge/parse-document';
import type { AttachmentExtraction, createParsePool as CreateParsePool, DocumentParsing } from '../../knowledge/parse-pool';
import { docxBomb } from '../support/office-files';

/**
 * The pool as the worker runs it: the compiled module (`npm test` builds first), whose parsing
 * thread exists. Under Jest the sources have no compiled thread entry and parse inline.
 */
const COMPILED = join(__dirname, '..', '..', 'dist', 'knowledge', 'parse-pool.js');

const job = (bytes: Buffer, name: string, parserId = 'naive'): ParseJob => ({
  bytes,
  name,
  parserId,
  options: { chunkTokens: 128, overlapTokens: 16 },
});
const licence = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'texts', name));
/** A text whose splitting takes seconds (3 million words: over 10 s on a 2-core machine): one unbroken run of words. */
const slowText = (words = 3_000_000) => Buffer.from('word '.repeat(words));

describe('parsing threads', () => {
  let createParsePool: typeof CreateParsePool;
  let pool: DocumentParsing & AttachmentExtraction;

  beforeAll(() => {
    if (!existsSync(COMPILED)) throw new Error(`${COMPILED} is missing: run npm run build first`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    createParsePool = (require(COMPILED) as { createParsePool: typeof CreateParsePool }).createParsePool;
    pool = createParsePool({ threads: 2, timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it('gives the chunks the calling thread would', async () => {
    for (const [name, parserId] of [
      ['GPL-3', 'naive'],
      ['tenancy-regulation.txt', 'laws'],
    ] as const) {
      const inThread = await pool.parse(job(licence(name), `${name}.txt`, parserId));
      expect(inThread.kind).toBe('chunks');
      expect(inThread).toEqual(await parseDocument(job(licence(name), `${name}.txt`, parserId)));
    }
  });

  it("returns a file's failure with its reason", async () => {
    expect(await pool.parse(job(Buffer.alloc(0), 'empty.txt'))).toEqual({ kind: 'failed', reason: 'empty', message: 'the file is empty' });
    expect(await pool.parse(job(licence('GPL-3'), 'GPL-3.txt', 'retired'))).toMatchObject({ kind: 'failed', reason: 'unsupported' });
    const corrupt = readFileSync(join(__dirname, '..', 'fixtures', 'documents', 'corrupt.pdf'));
    expect(await pool.parse(job(corrupt, 'corrupt.pdf'))).toMatchObject({ kind: 'failed', reason: 'corrupt' });
  });

  it('keeps the calling thread free while a long file is parsed', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = Date.now();
    try {
      expect((await pool.parse(job(slowText(), 'long.txt'))).kind).toBe('chunks');
    } finally {
      clearInterval(ticker);
    }
    const elapsed = Date.now() - started;
    // Parsed on this thread, the timer could not have fired at all until the parse ended.
    expect(elapsed).toBeGreaterThan(200);
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 10 / 4));
  });

  it('stops a file that runs over the time limit, and parses the next one', async () => {
    // 3 s: the limit also covers starting a fresh thread, which takes a while on a loaded machine.
    const strict = createParsePool({ threads: 1, timeoutMs: 3_000 });
    try {
      // Three times the usual slow text (about 40 s to parse on a 2-core machine): far over the limit on a fast one too.
      expect(await strict.parse(job(slowText(9_000_000), 'long.txt'))).toEqual({
        kind: 'failed',
        reason: 'corrupt',
        message: 'the file could not be parsed within 3 s',
      });
      // The next file is a short note: the replacement thread's start counts against its 3 s too, so a
      // long one could run over on a loaded machine and prove nothing.
      expect((await strict.parse(job(Buffer.from('A short note after the stopped file.'), 'note.txt'))).kind).toBe('chunks');
    } finally {
      await strict.close();
    }
  });

  it('reads attachments as the calling thread would, and refuses a zip bomb as too_large', async () => {
    const attachment = { bytes: licence('GPL-3'), name: 'GPL-3.txt' };
    const inThread = await pool.extract(attachment);
    expect(inThread).toMatchObject({ kind: 'text', format: 'text', truncated: false });
    expect(inThread).toEqual(await extractAttachment(attachment));
    expect(await pool.extract({ bytes: await docxBomb(50 * 1024 * 1024), name: 'bomb.docx' })).toMatchObject({
      kind: 'failed',
      reason: 'too_large',
    });
  });

  it('fails a file that needs more than the heap of a thread as too_large, and parses the next one', async () => {
    const small = createParsePool({ threads: 1, timeoutMs: 120_000, memoryMb: 64 });
    try {
      expect(await small.parse(job(slowText(), 'long.txt'))).toMatchObject({ kind: 'failed', reason: 'too_large' });
      expect((await small.parse(job(licence('Apache-2.0'), 'Apache-2.0.txt'))).kind).toBe('chunks');
    } finally {
      await small.close();
    }
  });
});
