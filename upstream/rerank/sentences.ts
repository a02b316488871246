/** Sentences longer passages are split into, and at most how many pieces one passage gives. */
const MAX_PIECES_PER_PASSAGE = 8;

/**
 * Splits a passage at sentence ends and line breaks, dropping fragments without a word. When a
 * passage has more sentences than MAX_PIECES_PER_PASSAGE, neighbours are joined into that many
 * windows, which bounds the embedding work per passage.
 */
export function sentencePieces(passage: string): string[] {
  const sentences = passage
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]{2}/u.test(s));
  if (sentences.length <= MAX_PIECES_PER_PASSAGE) return sentences;
  const perPiece = Math.ceil(sentences.length / MAX_PIECES_PER_PASSAGE);
  const pieces: string[] = [];
  for (let i = 0; i < sentences.length; i += perPiece) pieces.push(sentences.slice(i, i + perPiece).join(' '));
  return pieces;
}
