/**
 * The words of a text that carry its subject: lower-cased, accents removed, stop words dropped,
 * reduced to a crude stem so that "embeddings", "embedded" and "embedding" meet. The stemmer only
 * needs to be consistent between query and passage, not linguistically right.
 */
export function contentTerms(text: string): Set<string> {
  const terms = new Set<string>();
  const words =
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    terms.add(stem(word));
  }
  return terms;
}

const MIN_STEM = 3;
/** Words whose "-ed" is no past tense: "speed", "proceed", and "embed" (frequent in this domain). */
const NOT_PAST_TENSE = /(?:eed|mbed)$/;

export function stem(word: string): string {
  if (/^\p{N}+$/u.test(word)) return word;
  let w = word;
  // Plurals and third person.
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:[sxz]|ch|sh)es$/.test(w) && w.length - 2 >= MIN_STEM) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w) && w.length - 1 >= MIN_STEM) w = w.slice(0, -1);
  // One derivational or verb ending.
  if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else {
    const suffix = ['ments', 'ment', 'ness', 'ing', 'ed']
      .filter((s) => s !== 'ed' || !NOT_PAST_TENSE.test(w))
      .find((s) => w.endsWith(s) && w.length - s.length >= MIN_STEM);
    if (suffix) {
      w = w.slice(0, -suffix.length);
      // "sitting" -> "sitt" -> "sit", but "falling" keeps "fall".
      if (/([b-df-hj-km-np-rtv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
    }
  }
  // "database"/"databases" and "rule"/"ruled" end alike once the final e goes.
  if (w.endsWith('e') && w.length > MIN_STEM) w = w.slice(0, -1);
  return w;
}

const STOP_WORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing done down during each either else etc even ever every few for from further get gets got had has have having ' +
    'he her here hers herself him himself his how however if in into is it its itself just let like made make many may me might more most ' +
    'much must my myself no nor not now of off on once one only or other our ours ourselves out over own per please same shall she should ' +
    'show so some such tell than that the their theirs them themselves then there these they this those through thus to too under until ' +
    'up upon us use used using very via want was we were what whatever when where whether which while who whom whose why will with ' +
    'within without would yes yet you your yours yourself yourselves explain give know need find'
  ).split(' '),
);
