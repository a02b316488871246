/** Scores how well each candidate passage answers a query, to reorder search hits. */
export interface Reranker {
  /** Recorded with search results, e.g. `local:hybrid(local:all-minilm-l6-v2)` or `http:rerank-v3.5`. */
  readonly name: string;
  /** One score per document, in input order, each in [0, 1]; higher is more relevant. */
  rerank(query: string, documents: string[]): Promise<number[]>;
}

/** The rerank upstream failed (HTTP error, timeout, malformed answer). */
export class RerankError extends Error {
  constructor(
    message: string,
    /** true when trying again may help (5xx, 429, timeouts, connection errors). */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'RerankError';
  }
}
