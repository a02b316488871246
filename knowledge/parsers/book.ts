/**
 * Books: parts (`PART ONE`, `第一部`), chapters (`Chapter 1`, `CHAPTER I.` with its title on the next line,
 * `第一章`, `Prologue`, level-1 headings) and sections (`1.2 Title`, deeper headings) give the sectionPath;
 * inside, text is chunked naive-style with overlap. A table of contents is left out, but only when it is
 * clearly one: a `Contents` heading followed by at least three entry lines.
 */
import type { DocumentParser } from '../document-model';
import { isLoneLine, isTextLine, labelledHeading, namesPattern, numberedHeading, wordCount } from './shared/heading-text';
import { naiveChunks } from './shared/naive-chunks';
import { NumberingSequence } from './shared/numbering';
import { outline, type HeadingDetector, type HeadingMatch } from './shared/outline';
import { sourceItems, type SourceItem } from './shared/source-items';
import { matchStructuralLabel, type LabelKind } from './shared/structural-labels';

const RANK: Record<LabelKind, number> = { part: 1, chapter: 2, section: 3, article: 4 };
const CHAPTER_NAMES = namesPattern([
  'prologue',
  'epilogue',
  'preface',
  'foreword',
  'introduction',
  'afterword',
  'acknowledge?ments',
  'appendix( [A-Z\\d]+)?',
  '序言?',
  '前言',
  '引子',
  '楔子',
  '后记',
  '尾声',
]);
const CONTENTS = namesPattern(['(table of )?contents', '目\\s*录']);
/** TOC entries are short, or end in a page number (`Loomings ........ 1`). */
const MAX_ENTRY_WORDS = 12;
const MIN_TOC_ENTRIES = 3;

export const bookParser: DocumentParser = {
  id: 'book',
  description:
    'Books: parts, chapters and sections as the section path, naive chunking with overlap inside each; a clearly marked table of contents is skipped.',
  parse(doc, options) {
    const items = withoutTableOfContents(sourceItems(doc));
    return outline(items, bookHeadings()).flatMap((section) => naiveChunks(section.body, section.path, options));
  },
};

function bookHeadings(): HeadingDetector {
  const numbering = new NumberingSequence();
  const fromText = (text: string, items: readonly SourceItem[], index: number): HeadingMatch | undefined => {
    const labelled = labelledHeading(items, index, text);
    // "Chapter 3 of the report says..." is a sentence, not a heading.
    if (labelled && labelled.kind !== 'article' && !labelled.remainder) {
      return { rank: RANK[labelled.kind], title: labelled.title, extraLines: labelled.extraLines };
    }
    const numbered = numberedHeading(items, index, text);
    if (numbered && numbered.number.parts.length > 1 && numbered.title && !numbered.remainder && numbering.accept(numbered.number.parts)) {
      return { rank: RANK.section, title: `${numbered.number.label} ${numbered.title}` };
    }
    return undefined;
  };
  return (item, { items, index, atBoundary }) => {
    if (item.kind === 'heading') {
      return (
        fromText(item.text, items, index) ?? { rank: item.level === 1 ? RANK.chapter : RANK.chapter + item.level - 1, title: item.text }
      );
    }
    if (!isTextLine(item) || !atBoundary || item.listItem) return undefined;
    const match = fromText(item.text, items, index);
    if (match) return match;
    return isLoneLine(item) && CHAPTER_NAMES.test(item.text.replace(/[.:]$/, '')) ? { rank: RANK.chapter, title: item.text } : undefined;
  };
}

/**
 * Drops a table of contents: from a `Contents` heading to where its first entry comes round again as a
 * real heading (or, when entries do not repeat, to the last heading before the first prose).
 */
function withoutTableOfContents(items: SourceItem[]): SourceItem[] {
  const start = items.findIndex(
    (item) => (item.kind === 'heading' || (isTextLine(item) && isLoneLine(item))) && CONTENTS.test(item.text.trim()),
  );
  if (start < 0) return items;
  const end = endOfContents(items, start);
  const entries = items.slice(start + 1, end).filter(isTextLine).length;
  return entries >= MIN_TOC_ENTRIES ? [...items.slice(0, start), ...items.slice(end)] : items;
}

function endOfContents(items: readonly SourceItem[], start: number): number {
  const detect = bookHeadings();
  let firstEntry: string | undefined;
  let lastHeading: number | undefined;
  for (let index = start + 1; index < items.length; index++) {
    const item = items[index]!;
    if (item.kind === 'heading') return index;
    if (!isTextLine(item)) continue;
    if (isProse(item.text)) return lastHeading ?? index;
    if (!detect(item, { items, index, atBoundary: true })) continue;
    // Entries and headings may differ after the label (page numbers, a title on its own line).
    const key = matchStructuralLabel(item.text)?.label ?? item.text;
    if (firstEntry === undefined) firstEntry = key;
    else if (key === firstEntry) return index;
    lastHeading = index;
  }
  return items.length;
}

function isProse(text: string): boolean {
  if (/(?:\.{2,}|…+|\s)\s*\d+$/.test(text)) return false;
  return wordCount(text) > MAX_ENTRY_WORDS || (/[.!?。！？]["'”’]?$/.test(text) && wordCount(text) > 6);
}
