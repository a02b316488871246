import { createLocalMiniLm, defaultLocalModelDir, LOCAL_MINILM_MODEL } from './local-minilm';
import { MINILM_DIMENSION, MINILM_INSTALL_COMMAND, MINILM_MAX_TOKENS } from './minilm-runtime';
import { createOpenAiEmbeddings, type OpenAiEmbeddingsOptions } from './openai-compatible';
import type { EmbeddingProvider } from './provider';

export { EmbeddingError, type EmbeddingProvider } from './provider';
export { cosineSimilarity } from './vectors';
export { defaultLocalModelDir } from './local-minilm';

/** Plain values (already parsed from the environment) that choose and configure the provider. */
export type EmbeddingSettings =
  | {
      provider: 'local';
      /** Unset: `<repo>/.stack/models/all-minilm-l6-v2`, where the stack installer puts the model. */
      modelDir?: string;
      /** Threads the model computes on; unset: one fewer than the cores (see minilm-runtime). */
      threads?: number;
    }
  | ({ provider: 'openai' } & OpenAiEmbeddingsOptions);

/** One per process: the local provider loads its model on first use and keeps it. */
export function createEmbeddingProvider(settings: EmbeddingSettings): EmbeddingProvider {
  switch (settings.provider) {
    case 'local':
      return createLocalMiniLm({ modelDir: settings.modelDir ?? defaultLocalModelDir(), threads: settings.threads });
    case 'openai': {
      const { provider: _provider, ...options } = settings;
      return createOpenAiEmbeddings(options);
    }
  }
}

export interface EmbeddingModelDescription {
  provider: EmbeddingSettings['provider'];
  /** What a knowledge base records; `<model>` stands for the configured upstream model name. */
  model: string;
  /** null: whatever the upstream model produces (checked on every answer). */
  dimension: number | null;
  description: string;
}

/** The choices, for the API documentation (docs/api/knowledge.md, Embeddings). */
export function describeEmbeddingModels(): EmbeddingModelDescription[] {
  return [
    {
      provider: 'local',
      model: LOCAL_MINILM_MODEL,
      dimension: MINILM_DIMENSION,
      description:
        `sentence-transformers all-MiniLM-L6-v2 (quantized ONNX, Apache-2.0) run in the worker process; ` +
        `no network at run time. Inputs are cut to ${MINILM_MAX_TOKENS} word pieces. ` +
        `Installed by "${MINILM_INSTALL_COMMAND}".`,
    },
    {
      provider: 'openai',
      model: 'openai:<model>',
      dimension: null,
      description:
        'any OpenAI-compatible POST /embeddings endpoint (OpenAI, Ollama, vLLM, LiteLLM, TEI); ' +
        'vectors are normalised and their length checked against the configured or first-seen dimension.',
    },
  ];
}
