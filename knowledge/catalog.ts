import type { Config } from '../common/config';
import { createEmbeddingProvider, type EmbeddingProvider } from '../upstream/embeddings';
import { LOCAL_MINILM_MODEL } from '../upstream/embeddings/local-minilm';
import { createReranker, type Reranker } from '../upstream/rerank';

/**
 * The embedding models and reranker this installation offers, built once per process from the
 * configuration. A knowledge base records one model id; every process resolves it the same way.
 */
export interface KnowledgeCatalog {
  /** The model of new knowledge bases that name none. */
  defaultModel: string;
  /** Model ids a knowledge base may choose. */
  models(): string[];
  embedder(model: string): EmbeddingProvider | undefined;
  /** null when reranking is turned off (RERANK_PROVIDER=none). */
  reranker(embedder: EmbeddingProvider): Reranker | null;
}

export function createKnowledgeCatalog(config: Config): KnowledgeCatalog {
  const providers = new Map<string, EmbeddingProvider>();
  const local = createEmbeddingProvider({
    provider: 'local',
    modelDir: config.EMBEDDING_MODEL_DIR,
    threads: config.EMBEDDING_LOCAL_THREADS || undefined,
  });
  providers.set(local.model, local);
  if (config.EMBEDDING_BASE_URL) {
    const remote = createEmbeddingProvider({
      provider: 'openai',
      baseUrl: config.EMBEDDING_BASE_URL,
      apiKey: config.EMBEDDING_API_KEY,
      model: config.EMBEDDING_MODEL,
      dimension: config.EMBEDDING_DIMENSION,
    });
    providers.set(remote.model, remote);
  }
  const defaultModel = config.EMBEDDING_PROVIDER === 'openai' ? `openai:${config.EMBEDDING_MODEL}` : LOCAL_MINILM_MODEL;
  const rerankers = new Map<string, Reranker>();

  return {
    defaultModel,
    models: () => [...providers.keys()],
    embedder: (model) => providers.get(model),
    reranker(embedder) {
      if (config.RERANK_PROVIDER === 'none') return null;
      const key = config.RERANK_PROVIDER === 'http' ? 'http' : embedder.model;
      let reranker = rerankers.get(key);
      if (!reranker) {
        reranker =
          config.RERANK_PROVIDER === 'http'
            ? createReranker(
                { provider: 'http', baseUrl: config.RERANK_BASE_URL!, apiKey: config.RERANK_API_KEY, model: config.RERANK_MODEL },
                embedder,
              )
            : createReranker({ provider: 'local' }, embedder);
        rerankers.set(key, reranker);
      }
      return reranker;
    },
  };
}
