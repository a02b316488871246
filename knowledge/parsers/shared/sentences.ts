/**
 * Sentence splitting on the Unicode rules built into the runtime (UAX #29 through ICU), which also end
 * sentences at CJK full stops that no space follows.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });

/**
 * V8's segment iterator costs time in proportion to the whole string at every step, so one long
 * paragraph (a log, a hard-wrapped text without blank lines) would take quadratic time: 670 KB took
 * 14 s. Segmenting a window at a time keeps it linear; each window restarts at the last boundary
 * found in the previous one, whose final sentence may have been cut by the window's end.
 */
const WINDOW_CHARS = 2_000;

/** Start offsets of the sentences of `text` (the first is 0). */
function sentenceStarts(text: string): number[] {
  const starts: number[] = [];
  let from = 0;
  let window = WINDOW_CHARS;
  while (from < text.length) {
    const to = Math.min(text.length, from + window);
    const local: number[] = [];
    for (const { index } of segmenter.segment(text.slice(from, to))) local.push(index);
    // The last sentence is only known to be whole when the window reaches the end of the text.
    const whole = to === text.length ? local.length : local.length - 1;
    if (whole === 0) {
      // One sentence longer than the window: look further.
      window *= 2;
      continue;
    }
    for (let i = 0; i < whole; i++) starts.push(from + local[i]!);
    from = whole < local.length ? from + local[whole]! : to;
    window = WINDOW_CHARS;
  }
  return starts;
}

/**
 * The sentences of `text`, each with the whitespace that follows it, so that they concatenate back to
 * `text` exactly. ICU ends a sentence at every line break, but extracted text is hard-wrapped, so line
 * breaks are read as spaces (same length, so offsets still point into the original).
 */
export function splitSentences(text: string): string[] {
  const starts = sentenceStarts(text.replace(/[\r\n]/g, ' '));
  return starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length));
}
