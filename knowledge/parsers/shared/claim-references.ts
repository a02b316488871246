/**
 * The claims a patent claim refers back to: "according to claim 1", "as claimed in claims 2 or 3",
 * "of any one of claims 1 to 5", "claims 1-3", "any preceding claim", "根据权利要求1所述",
 * "如权利要求2或3所述", "权利要求1至3中任一项".
 */

/** `claim(s)` followed by numbers joined by commas, and/or, and ranges (`to`, `through`, `-`). */
const ENGLISH_REFERENCE = /\bclaims?\s+(\d+(?:\s*(?:,|,?\s*or|,?\s*and(?:\/or)?|to|through|-|\u2013|\u2014)\s*\d+)*)/gi;
const CHINESE_REFERENCE = /权利要求\s*(\d+(?:\s*(?:[、,，~～\-－]|或者?|和|至|到)\s*\d+)*)/g;
const ALL_PRECEDING =
  /\b(?:any|one) (?:one )?of the (?:preceding|previous|foregoing) claims\b|\bany (?:preceding|previous|foregoing) claim\b|前述任一项权利要求|前述权利要求中任一项/i;
const RANGE = /^(?:to|through|-|\u2013|\u2014|~|～|－|至|到)$/;

/** Numbers of the earlier claims that claim `claim` depends on, ascending; empty for an independent claim. */
export function claimDependencies(text: string, claim: number): number[] {
  const found = new Set<number>();
  if (ALL_PRECEDING.test(text)) for (let earlier = 1; earlier < claim; earlier++) found.add(earlier);
  for (const pattern of [ENGLISH_REFERENCE, CHINESE_REFERENCE]) {
    for (const match of text.matchAll(pattern)) for (const number of expandList(match[1]!)) found.add(number);
  }
  // A claim can only rest on claims before it; a later number is a reference to something else.
  return [...found].filter((number) => number >= 1 && number < claim).sort((a, b) => a - b);
}

/** `2, 3 or 5 to 7` gives 2, 3, 5, 6, 7. */
function expandList(list: string): number[] {
  const tokens = list.match(/\d+|to|through|[-\u2013\u2014~～－]|至|到/gi) ?? [];
  const numbers: number[] = [];
  let rangeFrom: number | undefined;
  for (const token of tokens) {
    if (RANGE.test(token.toLowerCase())) {
      rangeFrom = numbers[numbers.length - 1];
      continue;
    }
    const value = Number(token);
    if (rangeFrom !== undefined && value > rangeFrom && value - rangeFrom < 100) {
      for (let number = rangeFrom + 1; number <= value; number++) numbers.push(number);
    } else {
      numbers.push(value);
    }
    rangeFrom = undefined;
  }
  return numbers;
}
