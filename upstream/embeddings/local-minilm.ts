import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadMiniLm, MINILM_DIMENSION } from './minilm-runtime';
import type { EmbeddingProvider } from './provider';

export const LOCAL_MINILM_MODEL = 'local:all-minilm-l6-v2';
/** Texts per queued unit of work: a query waits behind at most this many chunks. */
const GROUP_SIZE = 32;

export interface LocalMiniLmOptions {
  /** Folder holding all-minilm-l6-v2-q.onnx and all-minilm-l6-v2-q-tokenizer.json. */
  modelDir: string;
  /** Threads the model computes on; unset: one fewer than the cores (see minilm-runtime). */
  threads?: number;
}

/**
 * all-MiniLM-L6-v2 run in-process with onnxruntime: 384 dimensions, no network at run time.
 * Embedding is CPU work; create this in the worker, never in the API process.
 */
export function createLocalMiniLm({ modelDir, threads }: LocalMiniLmOptions): EmbeddingProvider {
  return {
    model: LOCAL_MINILM_MODEL,
    dimension: MINILM_DIMENSION,
    async embed(texts) {
      if (texts.length === 0) return [];
      const runtime = await loadMiniLm(modelDir, threads);
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += GROUP_SIZE) {
        const group = texts.slice(start, start + GROUP_SIZE).map((text) => runtime.tokenize(text));
        vectors.push(...(await runtime.embedTokenized(group)));
      }
      return vectors;
    },
  };
}

/**
 * `<repo>/.stack/models/all-minilm-l6-v2`, where `bash stack/install.sh embedding-model` puts it.
 * The repository is the nearest folder above this file with a package.json, so the answer is the
 * same from the TypeScript sources (tests) and from dist/.
 */
export function defaultLocalModelDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return join(process.cwd(), '.stack', 'models', 'all-minilm-l6-v2');
    dir = parent;
  }
  return join(dir, '.stack', 'models', 'all-minilm-l6-v2');
}
