import { postJson } from '../http-json';
import { EmbeddingError, type EmbeddingProvider } from './provider';
import { normaliseInPlace } from './vectors';

export interface OpenAiEmbeddingsOptions {
  /** Up to and including the API version, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** The upstream's model name, e.g. `text-embedding-3-small`. */
  model: string;
  /** Expected vector length; when unset, the first answer fixes it for the life of the provider. */
  dimension?: number;
  /** Texts per request; OpenAI accepts up to 2048, smaller servers (Ollama, TEI) far fewer. */
  batchSize?: number;
  timeoutMs?: number;
}

/**
 * Any server speaking OpenAI's `POST /embeddings` (OpenAI, Azure-compatible proxies, Ollama,
 * vLLM, LiteLLM, TEI). `dimension` reads 0 until it is configured or the first answer arrives,
 * so configure it wherever the dimension must be known before embedding (index mappings).
 */
export function createOpenAiEmbeddings(options: OpenAiEmbeddingsOptions): EmbeddingProvider {
  const { apiKey, model, batchSize = 64, timeoutMs = 30_000 } = options;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  let dimension = options.dimension;
  const makeError = (message: string, retryable: boolean) => new EmbeddingError(message, retryable);

  const embedBatch = async (input: string[]): Promise<number[][]> => {
    const body = await postJson({ url, apiKey, timeoutMs, upstream: 'embeddings', makeError, body: { model, input } });
    const vectors = vectorsInInputOrder(body, input.length);
    for (const vector of vectors) {
      // A different length means a different model than the one the knowledge base was built
      // with; retrying cannot fix that, and mixing lengths would corrupt the index.
      dimension ??= vector.length;
      if (vector.length !== dimension) {
        throw new EmbeddingError(`embeddings upstream returned ${vector.length}-dimensional vectors, expected ${dimension}`, false);
      }
      normaliseInPlace(vector);
    }
    return vectors;
  };

  return {
    model: `openai:${model}`,
    get dimension() {
      return dimension ?? 0;
    },
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        vectors.push(...(await embedBatch(texts.slice(start, start + batchSize))));
      }
      return vectors;
    },
  };
}

/** `data[].embedding` placed by `data[].index`; anything missing or malformed is an upstream fault. */
function vectorsInInputOrder(body: unknown, count: number): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw new EmbeddingError(`embeddings upstream returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`, false);
  }
  const vectors = new Array<number[] | undefined>(count);
  data.forEach((item: unknown, position) => {
    const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
      throw new EmbeddingError(`embeddings upstream returned an invalid or repeated index`, false);
    }
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingError('embeddings upstream returned an embedding that is not a list of numbers', false);
    }
    vectors[index] = embedding as number[];
  });
  return vectors as number[][];
}
