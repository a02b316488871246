/**
 * The section tree of a document as a flat list in reading order: each parser says which items are
 * headings and how high they rank, and gets back every section with its path and its own body.
 */
import { endsSentence, isTextLine, isUpperCase, MAX_TITLE_WORDS, wordCount } from './heading-text';
import type { SourceItem } from './source-items';

export interface HeadingMatch {
  /** Smaller ranks are higher in the hierarchy; a heading closes every open section of its rank or lower. */
  rank: number;
  /** The heading as it appears in sectionPath. */
  title: string;
  /** Running text that shared the heading's line; it opens the section's body. */
  remainder?: string;
  /** Following lines that belong to the heading (a title under a label-only line). */
  extraLines?: number;
}

interface HeadingContext {
  items: readonly SourceItem[];
  index: number;
  /**
   * The line may open a heading: it starts its paragraph, or the line before it ended a sentence or was a
   * heading. PDF pages arrive as one paragraph, so paragraph starts alone would miss their headings, and a
   * wrapped line that happens to begin with `7.` must not count.
   */
  atBoundary: boolean;
}

export type HeadingDetector = (item: SourceItem, context: HeadingContext) => HeadingMatch | undefined;

export interface Section {
  /** Titles from the root to this section, this one's included. */
  path: string[];
  /** Undefined for the untitled section before the first heading. */
  title?: string;
  body: SourceItem[];
  /** Whether the body holds more than the heading's own lines (when those are kept as text). */
  hasOwnText: boolean;
}

export interface OutlineOptions {
  /** Keep heading lines at the start of their section's body: statutes quote an article with its heading. */
  keepHeadingLines?: boolean;
}

/** Sections in reading order, starting with the untitled one that holds whatever precedes the first heading. */
export function outline(items: readonly SourceItem[], detect: HeadingDetector, options: OutlineOptions = {}): Section[] {
  const root: Section = { path: [], body: [], hasOwnText: false };
  const sections: Section[] = [root];
  const open: { rank: number; title: string }[] = [];
  let current = root;
  let afterHeading = false;

  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    const match = detect(item, { items, index, atBoundary: afterHeading || opensLine(items, index) });
    if (!match) {
      current.body.push(item);
      current.hasOwnText ||= item.kind !== 'heading';
      afterHeading = false;
      continue;
    }
    while (open.length > 0 && open[open.length - 1]!.rank >= match.rank) open.pop();
    open.push({ rank: match.rank, title: match.title });
    current = { path: open.map((entry) => entry.title), title: match.title, body: [], hasOwnText: false };
    sections.push(current);

    const headingItems = items.slice(index, index + 1 + (match.extraLines ?? 0));
    if (options.keepHeadingLines) {
      current.body.push(...headingItems);
    } else if (match.remainder && isTextLine(item)) {
      current.body.push({ ...item, text: match.remainder });
      current.hasOwnText = true;
    }
    index += headingItems.length - 1;
    afterHeading = !match.remainder;
  }
  return sections;
}

function opensLine(items: readonly SourceItem[], index: number): boolean {
  const item = items[index];
  if (!isTextLine(item) || item.first) return true;
  const previous = items[index - 1];
  if (!isTextLine(previous) || previous.paragraph !== item.paragraph || endsSentence(previous.text)) return true;
  // A short upper-case line is a heading itself (`TERMS AND CONDITIONS` above `0. Definitions.` on a PDF page).
  return isUpperCase(previous.text) && wordCount(previous.text) <= MAX_TITLE_WORDS;
}

/**
 * Whether the section after `index` lies inside it. Opening a heading only pops ranks at or below its
 * own, so a longer path right after a section always extends that section's path.
 */
export function hasSubsections(sections: readonly Section[], index: number): boolean {
  const next = sections[index + 1];
  return next !== undefined && next.path.length > sections[index]!.path.length;
}

/** Heading blocks (Markdown, HTML, DOCX) by their level, and nothing else. */
export const headingBlocks: HeadingDetector = (item) => (item.kind === 'heading' ? { rank: item.level, title: item.text } : undefined);
