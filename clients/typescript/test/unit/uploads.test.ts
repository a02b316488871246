/** Uploads and documents.wait against a scripted fetch (no service needed). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { APITimeoutError, Combo, toFile, type Document, type UploadProgress } from '../../src/index';
import { envelope, ok, scripted, type Step } from '../support/scripted';

function client(steps: Step[]) {
  const { fetch, calls } = scripted(steps);
  return { client: new Combo({ baseURL: 'http://combo.test', apiKey: 'combo_test', fetch }), calls };
}

const decoded = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('uploads', () => {
  test('a retried upload (503, then 200) sends the whole file again, and its progress starts over from 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'combo-upload-'));
    const path = join(dir, 'manual.txt');
    // Large enough to be read out in several pieces.
    const content = 'Hold the button for ten seconds to reset the router.\n'.repeat(20_000);
    writeFileSync(path, content);
    const document = { doc_id: 'doc_1', kb_id: 'kb_1', name: 'manual.txt', status: 'parsing' };
    const { client: c, calls } = client([envelope(503, 20001, {}, { 'retry-after': '0' }), ok(document)]);

    const progress: UploadProgress[] = [];
    const uploaded = await c.documents.upload({ kb_id: 'kb_1', file: path }, { onProgress: (p) => progress.push({ ...p }) });
    expect(uploaded).toEqual(document);

    expect(calls).toHaveLength(2);
    const [first, second] = calls;
    expect(first!.url).toBe('http://combo.test/v1/document');
    // The same bytes, the whole file in each, under one Idempotency-Key.
    expect(Buffer.compare(second!.body, first!.body)).toBe(0);
    for (const call of calls) {
      const text = decoded(call.body);
      expect(text).toContain('filename="manual.txt"');
      expect(text).toContain(content);
      expect(Number(call.headers.get('content-length'))).toBe(call.body.byteLength);
    }
    expect(second!.headers.get('idempotency-key')).toBe(first!.headers.get('idempotency-key'));

    // Two runs of progress, each from 0 to the whole body, each increasing.
    const total = first!.body.byteLength;
    expect(progress.every((p) => p.total === total)).toBe(true);
    const starts = progress.flatMap((p, i) => (p.loaded === 0 ? [i] : []));
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBe(0);
    const runs = [progress.slice(0, starts[1]), progress.slice(starts[1])];
    for (const run of runs) {
      expect(run.length).toBeGreaterThan(2);
      expect(run.at(-1)!.loaded).toBe(total);
      expect(run.map((p) => p.loaded)).toEqual([...run.map((p) => p.loaded)].sort((a, b) => a - b));
    }
  });
});

describe('upload file names and paths', () => {
  test('a path with no file: an error naming the path (code ENOENT), and nothing sent', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'combo-upload-')), 'no-such-manual.txt');
    const { client: c, calls } = client([ok({ doc_id: 'doc_1' })]);
    const error = await c.documents.upload({ kb_id: 'kb_1', file: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`No such file to upload: '${missing}' (ENOENT)`);
    expect(error).toMatchObject({ code: 'ENOENT', path: missing });
    expect(calls).toHaveLength(0);
  });

  test('a directory: an error naming it (code EISDIR), and nothing sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'combo-upload-'));
    const { client: c, calls } = client([ok({ file_id: 'file_1' })]);
    const error = await c.files.upload({ file: dir }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`Cannot upload '${dir}': it is a directory (EISDIR)`);
    expect(error).toMatchObject({ code: 'EISDIR', path: dir });
    expect(calls).toHaveLength(0);
  });

  test('bytes, an ArrayBuffer, a Blob or a stream without a name are sent as filename="file"; toFile names them', async () => {
    const bytes = new TextEncoder().encode('ten seconds');
    const unnamed = [bytes, bytes.buffer, new Blob([bytes]), new Blob([bytes]).stream()];
    const { client: c, calls } = client([...unnamed, 0].map(() => ok({ file_id: 'file_1' })));
    for (const file of unnamed) await c.files.upload({ file });
    await c.files.upload({ file: await toFile(bytes, 'notes.txt') });
    const names = calls.map((call) => /filename="([^"]*)"/.exec(decoded(call.body))?.[1]);
    expect(names).toEqual(['file', 'file', 'file', 'file', 'notes.txt']);
  });
});

describe('documents.wait', () => {
  const doc = (status: string, fraction: number) =>
    ok({ doc_id: 'doc_1', status, progress: { stage: status === 'ready' ? 'done' : 'embedding', fraction } });

  test('polls until the status is ready or failed exactly: any other status is waited out', async () => {
    // `queued` stands for a status a later service might add: not an end.
    const { client: c, calls } = client([doc('parsing', 0.2), doc('queued', 0.4), doc('parsing', 0.8), doc('ready', 1)]);
    const fractions: number[] = [];
    const ready = await c.documents.wait('doc_1', { pollInterval: 10, onProgress: (p) => fractions.push(p.fraction) });
    expect(ready.status).toBe('ready');
    expect(calls).toHaveLength(4);
    expect(fractions).toEqual([0.2, 0.4, 0.8, 1]);

    const failed = client([doc('parsing', 0.1), ok({ doc_id: 'doc_1', status: 'failed', error: { reason: 'corrupt' }, progress: {} })]);
    const answer: Document = await failed.client.documents.wait('doc_1', { pollInterval: 10 });
    expect(answer).toMatchObject({ status: 'failed', error: { reason: 'corrupt' } });
    expect(failed.calls).toHaveLength(2);
  });

  test('after its timeout: APITimeoutError saying the status', async () => {
    const { client: c } = client([doc('queued', 0)]);
    await expect(c.documents.wait('doc_1', { timeout: 100, pollInterval: 20 })).rejects.toThrow(APITimeoutError);
    await expect(c.documents.wait('doc_1', { timeout: 50, pollInterval: 20 })).rejects.toThrow(/still queued/);
  });
});
