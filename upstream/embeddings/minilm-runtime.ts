import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Tokenizer } from '@huggingface/tokenizers';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { EmbeddingError } from './provider';
import { normaliseInPlace } from './vectors';

/**
 * The quantized all-MiniLM-L6-v2 (sentence-transformers) as published inside the langchain4j jar
 * on Maven Central; stack/install.sh unpacks these two files into the model folder.
 */
const MINILM_FILES = {
  onnx: 'all-minilm-l6-v2-q.onnx',
  tokenizer: 'all-minilm-l6-v2-q-tokenizer.json',
} as const;
export const MINILM_DIMENSION = 384;
/** The model was trained on inputs up to 256 word pieces; longer ones lose quality, so we cut. */
export const MINILM_MAX_TOKENS = 256;
export const MINILM_INSTALL_COMMAND = 'bash stack/install.sh embedding-model';

/**
 * Bounds tokenizer work on huge inputs: 8192 characters of ordinary text are far more than 256
 * word pieces, so cutting here never changes what the model sees for normal chunks.
 */
const MAX_CHARS_TOKENIZED = 8192;

/** The jar ships only tokenizer.json; these are the model's tokenizer_config.json values. */
const TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  tokenize_chinese_chars: true,
  strip_accents: null,
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  mask_token: '[MASK]',
  clean_up_tokenization_spaces: true,
  model_max_length: 512,
};

/**
 * A loaded model: tokenizes one text, and turns a group of tokenized texts into unit vectors.
 *
 * Each text gets its own inference (batch dimension 1) on purpose. The export is dynamically
 * quantized: every layer's activations are scaled by one factor computed over the whole input
 * tensor, so a text's vector depends on which other texts share its batch (measured: cosine as low
 * as 0.991 between a chunk embedded in a batch of 32 and the same chunk alone). Queries are embedded
 * alone, so chunks must be too. The cost is within measurement noise on 2 cores: in alternating
 * runs, padded batches of 32 and single runs both gave about 55-80 chunks of 100 words per second.
 */
export interface MiniLmRuntime {
  tokenize(text: string): number[];
  embedTokenized(group: number[][]): Promise<number[][]>;
}

const loaded = new Map<string, Promise<MiniLmRuntime>>();

/**
 * Loads the session and tokenizer once per process and folder. A failed load is forgotten so
 * that installing the model afterwards works without restarting the process.
 */
export function loadMiniLm(modelDir: string, threads = defaultThreads()): Promise<MiniLmRuntime> {
  let runtime = loaded.get(modelDir);
  if (!runtime) {
    runtime = createRuntime(modelDir, threads);
    loaded.set(modelDir, runtime);
    runtime.catch(() => loaded.delete(modelDir));
  }
  return runtime;
}

/**
 * One core fewer than the machine has (at least 1, at most 8): the model's threads compute flat out
 * during a bulk ingest, and with every core theirs a completion's workflow and activity tasks in the
 * same worker wait for a core (isolation bench: completions 2.6× slower during an ingest on 2 cores).
 */
const defaultThreads = () => Math.max(1, Math.min(availableParallelism() - 1, 8));

async function createRuntime(modelDir: string, threads: number): Promise<MiniLmRuntime> {
  for (const file of Object.values(MINILM_FILES)) {
    if (!existsSync(join(modelDir, file))) {
      throw new EmbeddingError(
        `the local embedding model is not installed: ${join(modelDir, file)} is missing; ` +
          `install it with "${MINILM_INSTALL_COMMAND}" or point EMBEDDING_MODEL_DIR at a folder holding it`,
        false,
      );
    }
  }
  let tokenizer: Tokenizer;
  let session: InferenceSession;
  let int64Tensor: (data: BigInt64Array, dims: number[]) => Tensor;
  try {
    // Required lazily: the native runtime is ~290 MB of binaries and only the worker embeds.
    const [{ Tokenizer }, ort] = await Promise.all([import('@huggingface/tokenizers'), import('onnxruntime-node')]);
    const tokenizerJson: unknown = JSON.parse(await readFile(join(modelDir, MINILM_FILES.tokenizer), 'utf8'));
    tokenizer = new Tokenizer(tokenizerJson as object, TOKENIZER_CONFIG);
    int64Tensor = (data, dims) => new ort.Tensor('int64', data, dims);
    session = await ort.InferenceSession.create(join(modelDir, MINILM_FILES.onnx), {
      // One session serves the whole process and runs one text at a time on `threads` cores
      // (measured on 2 cores: 2 threads ~80 chunks/s; 1 thread, two runs side by side, ~50).
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      // The pool's threads spin between runs by default, taking the cores from what comes next: a
      // search's Elasticsearch query right after its question is embedded ran ~4 ms slower.
      extra: { session: { force_spinning_stop: '1' } },
    });
  } catch (err) {
    throw new EmbeddingError(`the local embedding model in ${modelDir} could not be loaded: ${errorText(err)}`, false);
  }
  const sepId = tokenizer.token_to_id('[SEP]');
  if (sepId === undefined) throw new EmbeddingError(`the tokenizer in ${modelDir} has no [SEP] token`, false);

  const embedOne = async (ids: number[]): Promise<number[]> => {
    const dims = [1, ids.length];
    const output = await session.run({
      input_ids: int64Tensor(
        BigInt64Array.from(ids, (id) => BigInt(id)),
        dims,
      ),
      attention_mask: int64Tensor(new BigInt64Array(ids.length).fill(1n), dims),
      token_type_ids: int64Tensor(new BigInt64Array(ids.length), dims),
    });
    const hidden = output['last_hidden_state'];
    if (!hidden || hidden.dims[2] !== MINILM_DIMENSION) {
      throw new EmbeddingError(`the model in ${modelDir} did not return ${MINILM_DIMENSION}-dimensional hidden states`, false);
    }
    return meanPool(hidden.data as Float32Array, ids.length);
  };
  // Groups run one after another: parallel runs would only fight over the same cores, and a
  // query waits for at most one group of a large document rather than the whole document.
  let previousGroup: Promise<unknown> = Promise.resolve();

  return {
    tokenize(text) {
      const ids = tokenizer.encode(text.slice(0, MAX_CHARS_TOKENIZED)).ids;
      if (ids.length <= MINILM_MAX_TOKENS) return ids;
      return [...ids.slice(0, MINILM_MAX_TOKENS - 1), sepId];
    },
    embedTokenized(group) {
      const run = previousGroup.then(async () => {
        const vectors: number[][] = [];
        for (const ids of group) vectors.push(await embedOne(ids));
        return vectors;
      });
      previousGroup = run.catch(() => undefined);
      return run.catch((err: unknown) => {
        if (err instanceof EmbeddingError) throw err;
        throw new EmbeddingError(`the local embedding model failed: ${errorText(err)}`, false);
      });
    },
  };
}

/** Sentence-transformers pooling: the mean of the tokens' hidden states, then L2 normalisation. */
function meanPool(hidden: Float32Array, length: number): number[] {
  const sum = new Float64Array(MINILM_DIMENSION);
  for (let t = 0; t < length; t++) {
    const offset = t * MINILM_DIMENSION;
    for (let d = 0; d < MINILM_DIMENSION; d++) sum[d] = sum[d]! + hidden[offset + d]!;
  }
  return normaliseInPlace(Array.from(sum, (x) => x / length));
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}
