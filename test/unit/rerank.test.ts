/**
 * @jest-environment ./test/support/onnx-environment.js
 */
import { createEmbeddingProvider, defaultLocalModelDir, type EmbeddingProvider } from '../../upstream/embeddings';
import { createReranker, RerankError, type Reranker } from '../../upstream/rerank';
import { contentTerms, stem } from '../../upstream/rerank/query-terms';
import { sentencePieces } from '../../upstream/rerank/sentences';
import { ScriptedUpstream } from '../support/scripted-upstream';

const API_KEY = 'jina_0123456789abcdefSECRETKEY';

async function failure(promise: Promise<unknown>): Promise<RerankError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RerankError);
  return err as RerankError;
}

/** The HTTP reranker never embeds; anything calling this is a bug. */
const noEmbeddings: EmbeddingProvider = {
  model: 'none',
  dimension: 0,
  embed: () => Promise.reject(new Error('the HTTP reranker must not embed')),
};

describe('the HTTP reranker', () => {
  const upstream = new ScriptedUpstream();
  let baseUrl: string;
  let reranker: Reranker;
  beforeAll(async () => {
    baseUrl = await upstream.start();
    reranker = createReranker({ provider: 'http', baseUrl, apiKey: API_KEY, model: 'jina-reranker-v2-base-multilingual' }, noEmbeddings);
  });
  afterAll(() => upstream.stop());
  beforeEach(() => upstream.requests.splice(0));

  it('sends query, documents and top_n with the key, and maps scores back to input order', async () => {
    upstream.reply = () => ({
      body: {
        model: 'm',
        results: [
          { index: 2, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.4, document: { text: 'a' } },
        ],
      },
    });
    const scores = await reranker.rerank('which one?', ['a', 'b', 'c']);
    expect(scores).toEqual([0.4, 0, 0.9]);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/rerank',
      body: { model: 'jina-reranker-v2-base-multilingual', query: 'which one?', documents: ['a', 'b', 'c'], top_n: 3 },
    });
    expect(upstream.requests[0]!.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(reranker.name).toBe('http:jina-reranker-v2-base-multilingual');
  });

  it('squashes raw logits into [0, 1] keeping their order', async () => {
    upstream.reply = () => ({
      body: {
        results: [
          { index: 0, relevance_score: -3.2 },
          { index: 1, relevance_score: 4.5 },
        ],
      },
    });
    const [low, high, missing] = await reranker.rerank('q', ['a', 'b', 'c']);
    expect(low).toBeGreaterThan(0);
    expect(high).toBeLessThan(1);
    expect(high).toBeGreaterThan(low!);
    expect(missing).toBe(0);
  });

  it('asks nothing for no documents', async () => {
    await expect(reranker.rerank('q', [])).resolves.toEqual([]);
    expect(upstream.requests).toHaveLength(0);
  });

  it('shares the embeddings client error policy', async () => {
    upstream.reply = () => ({ status: 503, body: { message: 'overloaded' } });
    const unavailable = await failure(reranker.rerank('q', ['a']));
    expect(unavailable).toMatchObject({ retryable: true, message: 'rerank upstream answered HTTP 503: overloaded' });

    upstream.reply = () => ({ status: 400, body: { detail: `bad request from key ${API_KEY}` } });
    const badRequest = await failure(reranker.rerank('q', ['a']));
    expect(badRequest.retryable).toBe(false);
    expect(badRequest.message).toBe('rerank upstream answered HTTP 400: bad request from key [redacted]');

    upstream.reply = () => ({ body: { results: [] }, delayMs: 2_000 });
    const slow = await failure(
      createReranker({ provider: 'http', baseUrl, apiKey: API_KEY, model: 'm', timeoutMs: 100 }, noEmbeddings).rerank('q', ['a']),
    );
    expect(slow.retryable).toBe(true);

    upstream.reply = () => ({ body: { results: [{ index: 7, relevance_score: 0.5 }] } });
    expect((await failure(reranker.rerank('q', ['a']))).retryable).toBe(false);

    for (const err of [unavailable, badRequest, slow]) expect(err.message).not.toContain(API_KEY);
  });
});

describe('the local reranker', () => {
  let reranker: Reranker;
  beforeAll(() => {
    const embeddings = createEmbeddingProvider({ provider: 'local', modelDir: process.env.EMBEDDING_MODEL_DIR ?? defaultLocalModelDir() });
    reranker = createReranker({ provider: 'local' }, embeddings);
  });

  const passages = {
    answer:
      'API keys are managed in the console under Settings. To rotate a key, create a new key, update your ' +
      'clients to send it, and then revoke the old key. Revoked keys stop working within five seconds.',
    nearMiss: 'Each agent has a name, a model and a list of tools. Agents can be exported and imported as JSON files.',
    offTopic: 'Quarterly revenue grew by ten percent, driven by strong sales in Europe and lower shipping costs.',
  };

  it('ranks the passage that answers a realistic question first, with scores in [0, 1]', async () => {
    const scores = await reranker.rerank('How do I rotate an API key?', [passages.offTopic, passages.answer, passages.nearMiss]);
    const [offTopic, answer, nearMiss] = scores;
    expect(answer).toBeGreaterThan(nearMiss!);
    expect(answer).toBeGreaterThan(offTopic!);
    expect(answer! - offTopic!).toBeGreaterThan(0.3);
    for (const s of scores) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
    expect(reranker.name).toBe('local:hybrid(local:all-minilm-l6-v2)');
  });

  it('finds a paraphrase without shared words, and scores a stop-word-only query by meaning alone', async () => {
    const [kitten, revenue] = await reranker.rerank('Where is the cat sleeping?', ['A kitten is resting on a rug.', passages.offTopic]);
    expect(kitten).toBeGreaterThan(revenue!);
    const [a, b] = await reranker.rerank('what is it?', [passages.answer, passages.offTopic]);
    for (const s of [a, b]) expect(s).toBeGreaterThanOrEqual(0);
  });
});

describe('query terms', () => {
  it('meet across word forms and drop stop words', () => {
    expect(new Set(['embeddings', 'embedded', 'embedding', 'embed'].map(stem)).size).toBe(1);
    expect(new Set(['databases', 'database'].map(stem)).size).toBe(1);
    expect(new Set(['sitting', 'sits', 'sit'].map(stem)).size).toBe(1);
    expect(new Set(['queries', 'query', 'queried'].map(stem)).size).toBe(1);
    expect([...contentTerms('How do I rotate the API keys in 2024?')]).toEqual(['rotat', 'api', 'key', '2024']);
    expect([...contentTerms('Café résumé')]).toEqual([...contentTerms('cafe RESUME')]);
  });

  it('split passages into at most eight sentence pieces', () => {
    expect(sentencePieces('One thing. Two things!\nThree things? 4')).toEqual(['One thing.', 'Two things!', 'Three things?']);
    const long = Array.from({ length: 20 }, (_, i) => `Sentence ${i}.`).join(' ');
    const pieces = sentencePieces(long);
    expect(pieces).toHaveLength(7);
    expect(pieces.join(' ')).toBe(long);
  });
});
