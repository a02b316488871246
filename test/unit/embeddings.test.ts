/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cosineSimilarity,
  createEmbeddingProvider,
  defaultLocalModelDir,
  describeEmbeddingModels,
  EmbeddingError,
  type EmbeddingProvider,
} from '../../upstream/embeddings';
import { createLocalMiniLm } from '../../upstream/embeddings/local-minilm';
import { createOpenAiEmbeddings } from '../../upstream/embeddings/openai-compatible';
import { ScriptedUpstream } from '../support/scripted-upstream';

const API_KEY = 'sk-test-0123456789abcdefSECRET';

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const maxDifference = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));

async function failure(promise: Promise<unknown>): Promise<EmbeddingError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmbeddingError);
  return err as EmbeddingError;
}

describe('the local all-MiniLM-L6-v2 provider', () => {
  // Installed into .stack by `bash stack/install.sh embedding-model` (stack/test.sh does it).
  const modelDir = process.env.EMBEDDING_MODEL_DIR ?? defaultLocalModelDir();
  let provider: EmbeddingProvider;
  beforeAll(() => {
    provider = createEmbeddingProvider({ provider: 'local', modelDir });
  });

  it('places related sentences closer than unrelated ones', async () => {
    const [cat, kitten, revenue] = await provider.embed([
      'The cat sits on the mat.',
      'A kitten is resting on a rug.',
      'Quarterly revenue grew by ten percent.',
    ]);
    const related = cosineSimilarity(cat!, kitten!);
    const unrelated = cosineSimilarity(cat!, revenue!);
    expect(related).toBeGreaterThan(0.5);
    expect(related - unrelated).toBeGreaterThan(0.3);
  });

  it('gives 384-dimensional unit vectors under a stable model name', async () => {
    expect(provider.model).toBe('local:all-minilm-l6-v2');
    expect(provider.dimension).toBe(384);
    const vectors = await provider.embed(['short', 'a somewhat longer sentence about knowledge bases', '']);
    for (const v of vectors) {
      expect(v).toHaveLength(384);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
  });

  it('returns a batch in input order, each vector as if embedded alone', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `Note ${i}: ${'the worker embeds chunks of documents '.repeat(1 + (i % 5))}`);
    const together = await provider.embed(texts);
    expect(together).toHaveLength(70);
    for (const [i, text] of texts.entries()) {
      const [alone] = await provider.embed([text]);
      expect(maxDifference(alone!, together[i]!)).toBeLessThan(1e-4);
    }
  });

  it('cuts texts longer than 256 word pieces instead of failing', async () => {
    const head = Array.from({ length: 300 }, (_, i) => `word${i % 50}`).join(' ');
    const [a, b, short] = await provider.embed([`${head} ending one`, `${head} a completely different ending`, 'word1']);
    expect(norm(a!)).toBeCloseTo(1, 5);
    // Both differ only after the first 256 word pieces, so the model saw the same input.
    expect(maxDifference(a!, b!)).toBeLessThan(1e-6);
    expect(cosineSimilarity(a!, short!)).toBeLessThan(0.99);
  });

  it('names the missing folder and the install command when the model is not installed', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-model-'));
    try {
      const err = await failure(createLocalMiniLm({ modelDir: empty }).embed(['hello']));
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(empty);
      expect(err.message).toContain('bash stack/install.sh embedding-model');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('embeds nothing without loading anything', async () => {
    await expect(createLocalMiniLm({ modelDir: '/nonexistent' }).embed([])).resolves.toEqual([]);
  });
});

describe('the OpenAI-compatible provider', () => {
  const upstream = new ScriptedUpstream();
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await upstream.start();
  });
  afterAll(() => upstream.stop());
  beforeEach(() => upstream.requests.splice(0));

  /** Answers like OpenAI, but lists the vectors in reverse order (the index says which is which). */
  const reversedAnswer = (dimension: number) => (req: { body: unknown }) => {
    const input = (req.body as { input: string[] }).input;
    const data = input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from({ length: dimension }, (_, d) => (d === 0 ? text.length : 1)),
    }));
    return { body: { object: 'list', data: data.reverse(), model: 'm' } };
  };

  it('sends the model, the texts and the key, and returns normalised vectors in input order', async () => {
    upstream.reply = reversedAnswer(4);
    const provider = createOpenAiEmbeddings({ baseUrl, apiKey: API_KEY, model: 'text-embedding-3-small', batchSize: 2 });
    const texts = ['a', 'bbb', 'ccccc'];
    const vectors = await provider.embed(texts);
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: ['a', 'bbb'] },
    });
    expect(upstream.requests[1]!.body).toEqual({ model: 'text-embedding-3-small', input: ['ccccc'] });
    expect(upstream.requests[0]!.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(upstream.requests[0]!.headers['content-type']).toBe('application/json');
    for (const [i, v] of vectors.entries()) {
      expect(norm(v)).toBeCloseTo(1, 10);
      expect(v[0]! / v[1]!).toBeCloseTo(texts[i]!.length, 10);
    }
    expect(provider.model).toBe('openai:text-embedding-3-small');
    expect(provider.dimension).toBe(4);
  });

  it('sends no Authorization header without a key', async () => {
    upstream.reply = reversedAnswer(3);
    await createOpenAiEmbeddings({ baseUrl: `${baseUrl}/`, model: 'nomic-embed-text' }).embed(['x']);
    expect(upstream.requests[0]!.path).toBe('/v1/embeddings');
    expect(upstream.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('refuses vectors of another length than configured, or than the first answer', async () => {
    upstream.reply = reversedAnswer(3);
    const configured = await failure(createOpenAiEmbeddings({ baseUrl, model: 'm', dimension: 1536 }).embed(['x']));
    expect(configured.retryable).toBe(false);
    expect(configured.message).toMatch(/3-dimensional.*expected 1536/);

    const learning = createOpenAiEmbeddings({ baseUrl, model: 'm' });
    expect(learning.dimension).toBe(0);
    await learning.embed(['x']);
    expect(learning.dimension).toBe(3);
    upstream.reply = reversedAnswer(5);
    expect((await failure(learning.embed(['y']))).retryable).toBe(false);
  });

  it('treats 5xx and 429 as retryable, other 4xx as final, and never repeats the key', async () => {
    const provider = createOpenAiEmbeddings({ baseUrl, apiKey: API_KEY, model: 'm' });
    upstream.reply = () => ({ status: 500, body: { error: { message: 'The server had an error while processing your request.' } } });
    const serverError = await failure(provider.embed(['x']));
    expect(serverError).toMatchObject({ retryable: true });
    expect(serverError.message).toBe('embeddings upstream answered HTTP 500: The server had an error while processing your request.');

    upstream.reply = () => ({ status: 429, body: { error: { message: 'Rate limit reached' } } });
    expect((await failure(provider.embed(['x']))).retryable).toBe(true);

    upstream.reply = () => ({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${API_KEY}. You can find your API key at https://platform.openai.com.` } },
    });
    const badKey = await failure(provider.embed(['x']));
    expect(badKey.retryable).toBe(false);
    expect(badKey.message).toMatch(/^embeddings upstream answered HTTP 401: Incorrect API key provided: \[redacted\]/);

    upstream.reply = () => ({ status: 400, body: 'x'.repeat(5000) });
    const badRequest = await failure(provider.embed(['x']));
    expect(badRequest.retryable).toBe(false);
    expect(badRequest.message.length).toBeLessThan(300);

    for (const err of [serverError, badKey, badRequest]) {
      expect(err.message).not.toContain(API_KEY);
      expect(err.message).not.toContain('0123456789abcdef');
      expect(err.stack).not.toContain(API_KEY);
    }
  });

  it('treats a timeout and an unreachable server as retryable', async () => {
    upstream.reply = () => ({ body: { data: [] }, delayMs: 2_000 });
    const slow = await failure(createOpenAiEmbeddings({ baseUrl, apiKey: API_KEY, model: 'm', timeoutMs: 100 }).embed(['x']));
    expect(slow.retryable).toBe(true);
    expect(slow.message).toMatch(/did not answer within 100 ms/);

    const closed = new ScriptedUpstream();
    const closedUrl = await closed.start();
    await closed.stop();
    const unreachable = await failure(createOpenAiEmbeddings({ baseUrl: closedUrl, apiKey: API_KEY, model: 'm' }).embed(['x']));
    expect(unreachable.retryable).toBe(true);
    expect(unreachable.message).toMatch(/could not be reached \(ECONNREFUSED\)/);
    expect(`${slow.message} ${unreachable.message}`).not.toContain(API_KEY);
  });

  it('rejects an answer that does not match the request', async () => {
    upstream.reply = () => ({ body: { data: [{ index: 0, embedding: [1, 0] }] } });
    const err = await failure(createOpenAiEmbeddings({ baseUrl, model: 'm' }).embed(['x', 'y']));
    expect(err).toMatchObject({ retryable: false, message: 'embeddings upstream returned 1 vectors for 2 texts' });
  });
});

describe('describeEmbeddingModels', () => {
  it('lists the local default with its dimension and the OpenAI-compatible choice', () => {
    expect(describeEmbeddingModels().map(({ provider, model, dimension }) => ({ provider, model, dimension }))).toEqual([
      { provider: 'local', model: 'local:all-minilm-l6-v2', dimension: 384 },
      { provider: 'openai', model: 'openai:<model>', dimension: null },
    ]);
  });
});
