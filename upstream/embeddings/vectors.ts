/** Small vector helpers shared by the embedding providers and the local reranker. */

/** Scales a vector to length 1 in place; an all-zero vector stays zero rather than becoming NaN. */
export function normaliseInPlace(vector: number[]): number[] {
  let sumOfSquares = 0;
  for (const x of vector) sumOfSquares += x * x;
  const norm = Math.sqrt(sumOfSquares);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/**
 * Cosine of the angle between two vectors, in [-1, 1]; 0 when either is all zeros.
 * Providers return unit vectors, but this does not rely on it so callers may pass any pair.
 */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length (${a.length} and ${b.length})`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return Math.max(-1, Math.min(1, dot / Math.sqrt(normA * normB)));
}
