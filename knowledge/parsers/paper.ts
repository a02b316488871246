/**
 * Scientific papers: the title heads every sectionPath; the abstract is its own chunk(s) (role
 * `abstract`); numbered (`1 Introduction`, `2.1 Method`), roman (`II. RELATED WORK`, with `A.` subsections)
 * and named (`INTRODUCTION`, `Conclusion`) sections are chunked naive-style inside; the references section
 * holds only `reference` chunks, each a group of whole entries up to chunkTokens, never mixed with body
 * text. Text between the title and the abstract (authors, affiliations) is `front-matter`.
 */
import type { ChunkDraft, DocumentParser, ExtractedDocument, ParserOptions } from '../document-model';
import { packedDrafts } from './shared/drafts';
import { isLoneLine, isTextLine, isUpperCase, namesPattern, numberedHeading, wordCount } from './shared/heading-text';
import { naiveChunks } from './shared/naive-chunks';
import { NumberingSequence } from './shared/numbering';
import { outline, type HeadingDetector, type HeadingMatch } from './shared/outline';
import { packPassages } from './shared/packing';
import { linesPassage } from './shared/passages';
import { sourceItems, type SourceItem } from './shared/source-items';
import { isRomanNumeral, romanValue } from './shared/structural-labels';

const ABSTRACT = namesPattern(['abstract', '摘要']);
const INLINE_ABSTRACT = /^(Abstract|ABSTRACT|摘要)\s*[:：.\u2014\u2013-]\s*(\S.*)$/;
const REFERENCES = namesPattern(['references', 'references and notes', 'bibliography', 'works cited', 'literature cited', '参考文献']);
const NAMED_SECTIONS = namesPattern([
  'introduction',
  'related work',
  'background',
  'preliminaries',
  'methods?',
  'methodology',
  'materials and methods',
  'approach',
  'experiments?',
  'experimental setup',
  'evaluation',
  'results( and discussion)?',
  'discussion',
  'conclusions?( and future work)?',
  'limitations',
  'future work',
  'acknowledge?ments?',
  'appendix( [A-Z])?',
  'supplementary material',
  'references',
  'bibliography',
  '引言',
  '结论',
  '致谢',
]);
/** Where a new reference entry starts: `[12]`, `12.`, `(12)`. */
const REFERENCE_MARKER = /^(\[\d{1,3}\]|\d{1,3}\.\s|\(\d{1,3}\)\s)/;
const MAX_SECTION_TITLE_WORDS = 10;

export const paperParser: DocumentParser = {
  id: 'paper',
  description:
    'Scientific papers: abstract, numbered or named sections chunked naive-style with their section path, and references grouped apart (roles abstract, reference, front-matter).',
  parse(doc, options) {
    const { title, items } = titleAndBody(doc);
    const root = title ? [title] : [];
    const sections = outline(items, paperHeadings(items));
    return sections.flatMap((section) => {
      const path = [...root, ...section.path];
      const name = section.path[0] === undefined ? undefined : sectionName(section.path[0]);
      // Text before the first section is front matter, unless no section was found at all.
      if (name === undefined) return naiveChunks(section.body, path, options, sections.length > 1 ? { role: 'front-matter' } : {});
      if (ABSTRACT.test(name)) return naiveChunks(section.body, path, options, { role: 'abstract' });
      if (REFERENCES.test(name)) return referenceChunks(section.body, path, options);
      return naiveChunks(section.body, path, options);
    });
  },
};

/**
 * The title: the document's own, else the first heading block (taken out of the body so that it does not
 * become a section), else the first line of plain text (left in the front matter).
 */
function titleAndBody(doc: ExtractedDocument): { title?: string; items: SourceItem[] } {
  const items = sourceItems(doc);
  const first = items[0];
  if (first?.kind === 'heading' && (!doc.title || doc.title === first.text)) return { title: first.text, items: items.slice(1) };
  if (doc.title) return { title: doc.title, items };
  return { title: isTextLine(first) ? first.text : undefined, items };
}

/** The name of a section without its number: `2.1 Method` gives `Method`. */
function sectionName(title: string): string {
  return title.replace(/^(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.?|[A-H]\.)\s+/, '').replace(/[:.]$/, '');
}

function paperHeadings(items: readonly SourceItem[]): HeadingDetector {
  // Heading blocks no pattern names rank by level, the highest level used (the title's is gone) as sections.
  const topLevel = Math.min(...items.map((item) => (item.kind === 'heading' ? item.level : Infinity)));
  const numbering = new NumberingSequence();
  let lastRoman = 0;
  let lastLetter = '';
  let inBody = false;

  /** `lone`: the line is a paragraph of its own; `startsParagraph`: text may follow it in the same paragraph. */
  const fromText = (
    text: string,
    items: readonly SourceItem[],
    index: number,
    lone: boolean,
    startsParagraph: boolean,
  ): HeadingMatch | undefined => {
    const inline = INLINE_ABSTRACT.exec(text);
    if (inline && !inBody) {
      inBody = true;
      return { rank: 1, title: 'Abstract', remainder: inline[2] };
    }
    const named = text.replace(/[:.]$/, '');
    if (startsParagraph && (ABSTRACT.test(named) || NAMED_SECTIONS.test(named))) {
      inBody = true;
      lastLetter = '';
      return { rank: 1, title: named };
    }
    const numbered = numberedHeading(items, index, text);
    if (numbered) {
      const { number, title, remainder } = numbered;
      if (!isSectionTitle(title) || (!lone && remainder === '' && !number.dotted) || !numbering.accept(number.parts)) return undefined;
      inBody = true;
      return { rank: number.parts.length, title: `${number.label}${number.dotted ? '.' : ''} ${title}`, remainder };
    }
    const roman = /^([IVXLC]+)(\.?)\s+(\S.*)$/.exec(text);
    if (roman && isRomanNumeral(roman[1]!) && romanValue(roman[1]!) === lastRoman + 1) {
      const title = roman[3]!.replace(/[:.]$/, '');
      if (!isSectionTitle(title) || (roman[2] !== '.' && !isUpperCase(title))) return undefined;
      lastRoman++;
      lastLetter = '';
      inBody = true;
      return { rank: 1, title: `${roman[1]}. ${title}` };
    }
    const lettered = /^([A-H])\.\s+(\p{Lu}.*)$/u.exec(text);
    const expectedLetter = lastLetter ? String.fromCharCode(lastLetter.charCodeAt(0) + 1) : 'A';
    if (lettered && lastRoman > 0 && lettered[1] === expectedLetter && isSectionTitle(lettered[2]!.replace(/[:.]$/, ''))) {
      lastLetter = expectedLetter;
      return { rank: 2, title: `${lettered[1]}. ${lettered[2]!.replace(/[:.]$/, '')}` };
    }
    // Unnumbered upper-case headings (`RELATED WORK`), once past the front matter (author names may be capitals).
    if (lone && inBody && isUpperCase(named) && wordCount(named) <= 6) {
      lastLetter = '';
      return { rank: 1, title: named };
    }
    return undefined;
  };

  return (item, { items, index, atBoundary }) => {
    if (item.kind === 'heading') {
      const match = fromText(item.text, items, index, true, true);
      inBody = true;
      return match ?? { rank: item.level - topLevel + 1, title: item.text };
    }
    if (!isTextLine(item) || !atBoundary || item.listItem) return undefined;
    return fromText(item.text, items, index, isLoneLine(item), item.first);
  };
}

/** Titles of sections read like titles: short, capitalised, not a sentence. */
function isSectionTitle(title: string): boolean {
  return title !== '' && /^[\p{Lu}\p{Lo}]/u.test(title) && wordCount(title) <= MAX_SECTION_TITLE_WORDS && !/[,;]$/.test(title);
}

/** Reference entries start at a marker (`[3]`, `3.`); without markers, each paragraph is one entry. */
function referenceEntries(items: readonly SourceItem[]): string[] {
  const lines = items.flatMap((item, position) => {
    if (item.kind === 'line') return [{ text: item.text, paragraph: `p${item.paragraph}` }];
    const text = item.kind === 'table' ? item.rows.map((row) => row.join(' ')).join('\n') : item.text;
    return text.split('\n').map((line) => ({ text: line.trim(), paragraph: `i${position}` }));
  });
  const marked = lines.some((line) => REFERENCE_MARKER.test(line.text));
  const entries: string[][] = [];
  lines.forEach((line, index) => {
    const starts = marked ? REFERENCE_MARKER.test(line.text) : line.paragraph !== lines[index - 1]?.paragraph;
    if (starts || entries.length === 0) entries.push([line.text]);
    else entries[entries.length - 1]!.push(line.text);
  });
  return entries.map((entry) => entry.join(' '));
}

/** References grouped into chunks of whole entries; no overlap, so no entry appears twice. */
function referenceChunks(items: readonly SourceItem[], path: string[], options: ParserOptions): ChunkDraft[] {
  const entries = referenceEntries(items);
  if (entries.length === 0) return [];
  const packed = packPassages([linesPassage(entries)], { chunkTokens: options.chunkTokens, overlapTokens: 0 });
  return packedDrafts(packed, path, { role: 'reference' });
}
