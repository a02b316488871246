import type { EmbeddingProvider } from '../embeddings/provider';
import { createHttpReranker, type HttpRerankOptions } from './http-rerank';
import { createLocalReranker } from './local';
import type { Reranker } from './reranker';

export { RerankError, type Reranker } from './reranker';

/** Plain values (already parsed from the environment) that choose and configure the reranker. */
export type RerankSettings = { provider: 'local' } | ({ provider: 'http' } & HttpRerankOptions);

/** The local reranker scores with `embeddings` (the knowledge base's provider); 'http' ignores it. */
export function createReranker(settings: RerankSettings, embeddings: EmbeddingProvider): Reranker {
  switch (settings.provider) {
    case 'local':
      return createLocalReranker(embeddings);
    case 'http': {
      const { provider: _provider, ...options } = settings;
      return createHttpReranker(options);
    }
  }
}
