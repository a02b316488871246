/**
 * Recognising heading lines inside running text: which lines may be headings (display lines, short
 * titled lines), and where a heading's title ends and its running text begins.
 */
import type { SourceItem, TextLine } from './source-items';
import { matchOutlineNumber, matchStructuralLabel, type LabelKind, type OutlineNumber } from './structural-labels';

/** Words for length limits; CJK has no spaces, so two characters count as one word. */
export function wordCount(text: string): number {
  const words = text.match(/[\p{L}\p{N}'’"“”&-]+/gu) ?? [];
  let count = 0;
  for (const word of words) {
    const cjk = word.match(/[\u3400-\u9fff\uf900-\ufaff]/g)?.length ?? 0;
    count += cjk === 0 ? 1 : Math.ceil(cjk / 2) + (cjk < word.length ? 1 : 0);
  }
  return count;
}

/** Headings are short; running text that merely starts with a number is not. */
export const MAX_TITLE_WORDS = 10;

const ENDS_SENTENCE = /[.;:!?。；：！？]["'”’)\]）]*$/;

export function endsSentence(text: string): boolean {
  return ENDS_SENTENCE.test(text);
}

export interface TitleSplit {
  /** Empty when the line holds no short title (label only, or label followed by running text). */
  title: string;
  /** Running text after the title on the same line. */
  remainder: string;
}

/**
 * The title after a label: `Grant of Copyright License. Subject to...` gives the title up to the first
 * sentence end and the rest as running text; a short line is all title; a long one is all running text.
 */
export function splitTitle(rest: string): TitleSplit {
  const text = rest.replace(/^[\s.:：、)\u2013\u2014-]+/, '').trim();
  if (!text) return { title: '', remainder: '' };
  // CJK titles are never punctuated like sentences: `第一章 总则` has a title, `第五条 承租人应当...。` has not.
  if (/[。！？；]/.test(text)) return { title: '', remainder: text };
  const stop = /[.!?](?=\s+\S)/.exec(text);
  if (stop && wordCount(text.slice(0, stop.index)) <= MAX_TITLE_WORDS) {
    return { title: text.slice(0, stop.index).trim(), remainder: text.slice(stop.index + 1).trim() };
  }
  if (wordCount(text) <= MAX_TITLE_WORDS) return { title: text.replace(/[.:：]+$/, '').trim(), remainder: '' };
  return { title: '', remainder: text };
}

/**
 * `splitTitle` for the rest of a line at `items[index]`, except that a longish "title" running on into a
 * lower-case next line is the start of a sentence (`5.1. The rights granted under this License will
 * terminate automatically` / `if You fail...`), while a short one is a term being defined
 * (`1.1. "Contributor"` / `means each individual...`).
 */
function splitLineTitle(items: readonly SourceItem[], index: number, rest: string): TitleSplit {
  const split = splitTitle(rest);
  if (!split.title || split.remainder) return split;
  const line = items[index];
  const next = items[index + 1];
  const runsOn = isTextLine(line) && isTextLine(next) && next.paragraph === line.paragraph && /^\p{Ll}/u.test(next.text);
  return runsOn && wordCount(split.title) > MAX_DEFINED_TERM_WORDS ? { title: '', remainder: split.title } : split;
}

const MAX_DEFINED_TERM_WORDS = 6;

/** A whole-line, any-case match of one of `names` (each a regular-expression fragment). */
export function namesPattern(names: readonly string[]): RegExp {
  return new RegExp(`^(?:${names.join('|')})$`, 'i');
}

/** `label` and `title` as one sectionPath entry. */
export function headingTitle(label: string, title: string): string {
  return title ? `${label} ${title}` : label;
}

export function isTextLine(item: SourceItem | undefined): item is TextLine {
  return item?.kind === 'line';
}

/** A whole paragraph of one line. */
export function isLoneLine(line: TextLine): boolean {
  return line.first && line.last;
}

/** Upper-case Latin text with at least two letters and no lower-case ones. */
export function isUpperCase(text: string): boolean {
  return /[A-Z].*[A-Z]/.test(text) && !/\p{Ll}/u.test(text);
}

/**
 * A line set apart as a display heading: alone in its paragraph, short, not punctuated like a sentence,
 * and upper-case, centred (deeply indented) or underlined.
 */
export function isDisplayLine(line: TextLine): boolean {
  if (!isLoneLine(line) && !line.underline) return false;
  if (wordCount(line.text) > MAX_TITLE_WORDS || /[.,;]$/.test(line.text)) return false;
  return isUpperCase(line.text) || line.indent >= 8 || line.underline !== undefined;
}

/**
 * A short line right after a label-only heading that names it (`CHAPTER I.` then `Down the Rabbit-Hole`):
 * in the same paragraph, or alone in the next one.
 */
function titleLineAfter(items: readonly SourceItem[], index: number): TextLine | undefined {
  const heading = items[index];
  const next = items[index + 1];
  if (!isTextLine(heading) || !isTextLine(next)) return undefined;
  const sameParagraph = next.paragraph === heading.paragraph;
  if (!sameParagraph && !(heading.last && isLoneLine(next))) return undefined;
  if (wordCount(next.text) > MAX_TITLE_WORDS || /[.,;:]$/.test(next.text) || /^\p{Ll}/u.test(next.text)) return undefined;
  return next;
}

export interface LabelledHeading {
  kind: LabelKind;
  /** Label and title: `Chapter 2 Obligations`, `Article 12`. */
  title: string;
  /** Running text after the label on its line (`Article 3 The tenant shall...`). */
  remainder: string;
  /** 1 when the title was the next line (`CHAPTER I.` then `Down the Rabbit-Hole`). */
  extraLines: number;
}

/** A structural label at the start of the line `items[index]` (text `text`) with its title. */
export function labelledHeading(items: readonly SourceItem[], index: number, text: string): LabelledHeading | undefined {
  const label = matchStructuralLabel(text);
  if (!label) return undefined;
  const { title, remainder } = splitLineTitle(items, index, label.rest);
  const titleLine = !title && !remainder ? titleLineAfter(items, index) : undefined;
  return { kind: label.kind, title: headingTitle(label.label, title || titleLine?.text || ''), remainder, extraLines: titleLine ? 1 : 0 };
}

export interface NumberedHeading extends TitleSplit {
  number: OutlineNumber;
}

/** An outline number at the start of the line `items[index]` (text `text`) with its title, if any. */
export function numberedHeading(items: readonly SourceItem[], index: number, text: string): NumberedHeading | undefined {
  const number = matchOutlineNumber(text);
  return number && { number, ...splitLineTitle(items, index, number.rest) };
}
