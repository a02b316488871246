import { postJson } from '../http-json';
import { RerankError, type Reranker } from './reranker';

export interface HttpRerankOptions {
  /** Up to and including the API version, e.g. `https://api.cohere.com/v1` or `https://api.jina.ai/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** The upstream's model name, e.g. `rerank-v3.5` or `jina-reranker-v2-base-multilingual`. */
  model: string;
  timeoutMs?: number;
}

/** A Cohere/Jina-style `POST /rerank` endpoint (also served by vLLM, LiteLLM and Infinity). */
export function createHttpReranker(options: HttpRerankOptions): Reranker {
  const { apiKey, model, timeoutMs = 30_000 } = options;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/rerank`;
  const makeError = (message: string, retryable: boolean) => new RerankError(message, retryable);
  return {
    name: `http:${model}`,
    async rerank(query, documents) {
      if (documents.length === 0) return [];
      const body = await postJson({
        url,
        apiKey,
        timeoutMs,
        upstream: 'rerank',
        makeError,
        body: { model, query, documents, top_n: documents.length },
      });
      return scoresInInputOrder(body, documents.length);
    },
  };
}

/** `results[].relevance_score` placed by `results[].index`; a document left out scores 0. */
function scoresInInputOrder(body: unknown, count: number): number[] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new RerankError('rerank upstream returned no results list', false);
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of results as unknown[]) {
    const { index, relevance_score: score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count) {
      throw new RerankError('rerank upstream returned an invalid document index', false);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) {
      throw new RerankError('rerank upstream returned a score that is not a number', false);
    }
    scores[index] = score;
  }
  // Cohere and Jina answer probabilities; some servers pass raw cross-encoder logits through.
  // Squash those with the logistic function (the cross-encoders' own activation), all or none so
  // the order within one answer is kept.
  const logits = scores.some((s) => s !== undefined && (s < 0 || s > 1));
  return scores.map((s) => (s === undefined ? 0 : logits ? 1 / (1 + Math.exp(-s)) : s));
}
