/**
 * Sentence splitting on the Unicode rules built into the runtime (UAX #29 through ICU), which also end
 * sentences at CJK full stops that no space follows.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/**
 * The sentences of `text`, each with the whitespace that follows it, so that they concatenate back to
 * `text` exactly. ICU ends a sentence at every line break, but extracted text is hard-wrapped, so line
 * breaks are read as spaces (same length, so offsets still point into the original).
 */
export function splitSentences(text: string): string[] {
  const unwrapped = text.replace(/[\r\n]/g, ' ');
  const sentences: string[] = [];
  for (const { index, segment } of segmenter.segment(unwrapped)) {
    sentences.push(text.slice(index, index + segment.length));
  }
  return sentences;
}
