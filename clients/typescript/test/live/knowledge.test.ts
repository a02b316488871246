import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toFile, type DocumentProgress, type KnowledgeBase, type UploadProgress } from '../../src/index';
import { newClient, tag } from '../support/client';

const client = newClient();
let kb: KnowledgeBase;

beforeAll(async () => {
  kb = await client.knowledgeBases.create({ name: `kb-${tag()}`, description: 'client tests', chunk_tokens: 128 });
});
afterAll(async () => {
  await client.knowledgeBases.delete(kb.kb_id);
});

describe('knowledge bases', () => {
  test('parsers, embedding models; create, list, get, update', async () => {
    const parsers = await client.parsers.list();
    expect(parsers.items.map((p) => p.parser_id)).toContain('naive');
    const models = await client.embeddingModels.list();
    expect(models.items.map((m) => m.model)).toContain(models.default);

    expect(kb).toMatchObject({ parser_id: 'naive', chunk_tokens: 128, document_count: 0 });
    const ids = [];
    for await (const k of client.knowledgeBases.list()) ids.push(k.kb_id);
    expect(ids).toContain(kb.kb_id);
    expect((await client.knowledgeBases.get(kb.kb_id)).name).toBe(kb.name);
    expect((await client.knowledgeBases.update(kb.kb_id, { description: 'updated' })).description).toBe('updated');
  });

  test('documents: upload from bytes and from a path with progress, wait until ready, search hits them', async () => {
    const progress: UploadProgress[] = [];
    const fromBytes = await client.documents.upload(
      {
        kb_id: kb.kb_id,
        file: await toFile(new TextEncoder().encode('To reset the router, hold its button for ten seconds.'), 'router.txt'),
        parser_id: 'naive',
      },
      { onProgress: (p) => progress.push(p) },
    );
    expect(fromBytes).toMatchObject({ kb_id: kb.kb_id, name: 'router.txt', content_type: 'text/plain' });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)!.loaded).toBe(progress.at(-1)!.total);
    expect(progress.map((p) => p.loaded)).toEqual([...progress.map((p) => p.loaded)].sort((a, b) => a - b));

    const dir = mkdtempSync(join(tmpdir(), 'combo-client-'));
    const path = join(dir, 'kettle.md');
    writeFileSync(path, '# Kettle\n\nDescale the kettle with vinegar once a month.\n');
    const pathProgress: UploadProgress[] = [];
    const fromPath = await client.documents.upload({ kb_id: kb.kb_id, file: path }, { onProgress: (p) => pathProgress.push(p) });
    expect(fromPath).toMatchObject({ name: 'kettle.md', content_type: 'text/markdown' });
    expect(pathProgress.at(-1)).toEqual({ loaded: pathProgress.at(-1)!.total, total: pathProgress.at(-1)!.total });

    const stages: DocumentProgress[] = [];
    const ready = await client.documents.wait(fromBytes.doc_id, { timeout: 120_000, onProgress: (p) => stages.push(p) });
    expect(ready.status).toBe('ready');
    expect(ready.chunk_count).toBeGreaterThan(0);
    expect(stages.at(-1)).toMatchObject({ stage: 'done', fraction: 1 });
    expect((await client.documents.wait(fromPath.doc_id, { timeout: 120_000 })).status).toBe('ready');

    const positions = [];
    for await (const chunk of client.documents.listChunks(fromBytes.doc_id, { page_size: 1 })) positions.push(chunk.position);
    expect(positions).toEqual(Array.from({ length: ready.chunk_count }, (_, i) => i));
    const hits = await client.chunks.search({ question: 'reset the router', kb_ids: [kb.kb_id], top_k: 5 });
    expect(hits.chunks[0]).toMatchObject({ doc_id: fromBytes.doc_id, kb_id: kb.kb_id });
    expect(hits.chunks[0]!.content).toContain('hold its button');

    const listed = await client.documents.list(kb.kb_id, { status: 'ready' });
    expect(listed.items.map((d) => d.doc_id).sort()).toEqual([fromBytes.doc_id, fromPath.doc_id].sort());
    expect((await client.documents.get(fromPath.doc_id)).name).toBe('kettle.md');

    const reparsed = await client.documents.reparse(fromPath.doc_id, { parser_id: 'naive' });
    expect(reparsed.parse).toBe(2);
    expect((await client.documents.wait(fromPath.doc_id, { timeout: 120_000 })).status).toBe('ready');
    expect(await client.documents.delete(fromPath.doc_id)).toEqual({ deleted: true });
  });

  test('an upload from a Blob, a Uint8Array and a ReadableStream; files upload, get, delete', async () => {
    const attachment = await client.files.upload({
      file: new File(['Meeting notes: ship on Friday.'], 'notes.txt', { type: 'text/plain' }),
    });
    expect(attachment).toMatchObject({ name: 'notes.txt', format: 'text', truncated: false });
    expect(attachment.text_preview).toContain('ship on Friday');
    expect((await client.files.get(attachment.file_id)).file_id).toBe(attachment.file_id);
    expect(await client.files.delete(attachment.file_id)).toEqual({ deleted: true });

    const bytes = await client.files.upload({ file: new TextEncoder().encode('{"a": 1}') }, { onProgress: () => undefined });
    expect(bytes.size_bytes).toBe(8);
    const stream = new Blob(['plain text from a stream']).stream();
    const streamed = await client.files.upload({ file: await toFile(stream, 'streamed.txt') });
    expect(streamed.text_preview).toBe('plain text from a stream');
    await client.files.delete(bytes.file_id);
    await client.files.delete(streamed.file_id);
  });
});
