/**
 * Structural labels and outline numbers at the start of a line: `PART II`, `Chapter 2`, `Section 3`,
 * `Article 12`, `Art. 5`, `§ 7`, `第一章`, `第三条`, `1.`, `1.1.`, `2.3.1`, and roman numerals.
 */
export type LabelKind = 'part' | 'chapter' | 'section' | 'article';

export interface StructuralLabel {
  kind: LabelKind;
  /** Normalised label, e.g. `Article 12`, `§ 7`, `第三条`. */
  label: string;
  /** What follows the label on the line. */
  rest: string;
}

const NUMBER_WORDS = new Set(
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty'.split(
    ' ',
  ),
);
const ROMAN = /^(?=[MDCLXVI])M{0,3}(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$/;

export function isRomanNumeral(text: string): boolean {
  return ROMAN.test(text);
}

const ROMAN_DIGITS: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };

/** The value of a valid upper-case roman numeral. */
export function romanValue(numeral: string): number {
  let total = 0;
  for (let index = 0; index < numeral.length; index++) {
    const value = ROMAN_DIGITS[numeral[index]!] ?? 0;
    const next = ROMAN_DIGITS[numeral[index + 1] ?? ''] ?? 0;
    total += value < next ? -value : value;
  }
  return total;
}

/** `12`, `12a`, `3.2`, `IV`, `Twenty-One`: the things that follow a structural keyword. */
function isLabelNumber(token: string): boolean {
  if (/^\d+(?:\.\d+)*[A-Za-z]?$/.test(token)) return true;
  if (isRomanNumeral(token)) return true;
  return token.split('-').every((word) => NUMBER_WORDS.has(word.toLowerCase()));
}

const LABEL_NUMBER = String.raw`(\d+(?:\.\d+)*[A-Za-z]?|[A-Za-z]+(?:-[A-Za-z]+)*)(?=[\s.:)\u2013\u2014-]|$)`;
const LATIN_KEYWORDS: ReadonlyArray<[LabelKind, RegExp]> = [
  ['part', new RegExp(String.raw`^(PART|Part|BOOK|Book|TITLE|Title)\s*${LABEL_NUMBER}`)],
  ['chapter', new RegExp(String.raw`^(CHAPTER|Chapter|CHAP\.|Chap\.)\s*${LABEL_NUMBER}`)],
  ['section', new RegExp(String.raw`^(SECTION|Section|SEC\.|Sec\.)\s*${LABEL_NUMBER}`)],
  ['article', new RegExp(String.raw`^(ARTICLE|Article|ART\.|Art\.)\s*${LABEL_NUMBER}`)],
];
const CHINESE_NUMBER = '[零〇一二三四五六七八九十百千两\\d]+';
const CHINESE_LABELS: ReadonlyArray<[LabelKind, RegExp]> = [
  ['part', new RegExp(`^第${CHINESE_NUMBER}(?:编|部分|卷)`)],
  ['chapter', new RegExp(`^第${CHINESE_NUMBER}章`)],
  ['section', new RegExp(`^第${CHINESE_NUMBER}节`)],
  ['article', new RegExp(`^第${CHINESE_NUMBER}条(?:之${CHINESE_NUMBER})?`)],
];
const PARAGRAPH_SIGN = /^(§{1,2})\s*(\d+[A-Za-z]?(?:\.\d+)*)\.?/;

/** A structural keyword label at the start of `text`, if there is one. */
export function matchStructuralLabel(text: string): StructuralLabel | undefined {
  for (const [kind, pattern] of LATIN_KEYWORDS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const number = match[2]!;
    if (!isLabelNumber(number)) continue;
    const afterNumber = text.slice(match[0].length).replace(/^\./, '');
    return { kind, label: `${match[1]} ${number}`, rest: afterNumber.trim() };
  }
  for (const [kind, pattern] of CHINESE_LABELS) {
    const match = pattern.exec(text);
    if (match) return { kind, label: match[0], rest: text.slice(match[0].length).trim() };
  }
  const sign = PARAGRAPH_SIGN.exec(text);
  if (sign) return { kind: 'article', label: `${sign[1]} ${sign[2]}`, rest: text.slice(sign[0].length).trim() };
  return undefined;
}

export interface OutlineNumber {
  /** `[2, 3, 1]` for `2.3.1`. */
  parts: number[];
  /** As written, without a trailing dot. */
  label: string;
  /** Whether a dot followed the number (`1.` but also `1.1.`). */
  dotted: boolean;
  rest: string;
}

/** An outline number (`1.`, `1.1.`, `2.3.1`, `4`) at the start of `text`, followed by space or the end. */
export function matchOutlineNumber(text: string): OutlineNumber | undefined {
  const match = /^(\d{1,3}(?:\.\d{1,3})*)(\.?)(?=\s|$)/.exec(text);
  if (!match) return undefined;
  return {
    parts: match[1]!.split('.').map(Number),
    label: match[1]!,
    dotted: match[2] === '.',
    rest: text.slice(match[0].length).trim(),
  };
}
