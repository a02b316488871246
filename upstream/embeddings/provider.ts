/** Turns texts into vectors. One provider instance is shared per process and batches internally. */
export interface EmbeddingProvider {
  /** Stable identifier recorded on a knowledge base, e.g. `local:all-minilm-l6-v2` or `openai:text-embedding-3-small`. */
  readonly model: string;
  readonly dimension: number;
  /** Vectors in input order, L2-normalised, each of length `dimension`. */
  embed(texts: string[]): Promise<number[][]>;
}

/** The embedding upstream failed (HTTP error, timeout, wrong dimension). */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    /** true when trying again may help (5xx, timeouts, connection errors). */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}
