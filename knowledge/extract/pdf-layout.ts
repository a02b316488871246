import { type Block } from '../document-model';
import { collapseWhitespace } from './require-text';

/** A piece of text as the PDF places it: baseline position and font size in user-space units. */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
  /** pdf.js marks the last run before a line break. */
  endsLine: boolean;
}

export interface PageText {
  page: number;
  runs: TextRun[];
}

interface Line {
  text: string;
  y: number;
  size: number;
}

/** Font sizes are compared at this precision; generators write 11 and 10.98 for the same style. */
const roundSize = (size: number) => Math.round(size * 2) / 2;
/** A line is a heading candidate from this size relative to the body text. */
const HEADING_SIZE_RATIO = 1.15;
const MAX_HEADING_CHARS = 150;
/** Lines further apart than this many line spacings start a new paragraph. */
const PARAGRAPH_GAP_RATIO = 1.35;
const PAGE_NUMBER = /^(?:page\s+)?[-–]?\s*\d{1,4}\s*[-–]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;
/** Running headers and footers: the same first or last line on at least this share of pages. */
const RUNNING_LINE_SHARE = 0.5;
const BULLET = /^[•◦▪▫●○■□‣⁃∙·–-]\s+/;

function joinRuns(runs: TextRun[]): string {
  let text = '';
  let previous: TextRun | undefined;
  for (const run of runs) {
    // Generators that position each word on its own leave no space characters between runs.
    const gap = previous ? run.x - (previous.x + previous.width) : 0;
    if (previous && gap > run.size * 0.15 && !/\s$/.test(text) && !/^\s/.test(run.text)) text += ' ';
    text += run.text;
    previous = run;
  }
  return collapseWhitespace(text);
}

function lineSize(runs: TextRun[]): number {
  const longest = runs.reduce((best, run) => (run.text.trim().length > best.text.trim().length ? run : best));
  return roundSize(longest.size);
}

function pageLines(runs: TextRun[]): Line[] {
  const groups: TextRun[][] = [];
  let current: TextRun[] = [];
  for (const run of runs) {
    const last = current[current.length - 1];
    if (last && Math.abs(run.y - last.y) > Math.max(run.size, last.size) * 0.5) {
      groups.push(current);
      current = [];
    }
    current.push(run);
    if (run.endsLine) {
      groups.push(current);
      current = [];
    }
  }
  groups.push(current);
  const lines = groups
    .filter((group) => group.some((run) => run.text.trim() !== ''))
    .map((group): Line => ({ text: joinRuns(group), y: group[0]!.y, size: lineSize(group) }));
  // A bare page number above or below the text is furniture, not content.
  return lines.filter((line, index) => !((index === 0 || index === lines.length - 1) && PAGE_NUMBER.test(line.text)));
}

/** Page numbers inside a running header ("Report – page 3") differ per page; compare without digits. */
const runningKey = (line: Line) => line.text.replace(/\d+/g, '#');

/** Drops a title or footer repeated at the top or bottom of most pages (documents of 3 pages or more). */
function withoutRunningLines(pages: Line[][]): Line[][] {
  if (pages.length < 3) return pages;
  const edgeCounts = new Map<string, number>();
  for (const lines of pages) {
    const edges = new Set([lines[0], lines[lines.length - 1]].filter((line) => line !== undefined).map(runningKey));
    for (const key of edges) edgeCounts.set(key, (edgeCounts.get(key) ?? 0) + 1);
  }
  const running = new Set([...edgeCounts].filter(([, count]) => count >= pages.length * RUNNING_LINE_SHARE).map(([key]) => key));
  if (running.size === 0) return pages;
  // The first page keeps its lines: a running header there is usually the document's own title.
  return pages.map((lines, pageIndex) =>
    pageIndex === 0
      ? lines
      : lines.filter((line, index) => !((index === 0 || index === lines.length - 1) && running.has(runningKey(line)))),
  );
}

/** The font size that carries the most characters is the body text. */
function bodySize(pages: Line[][]): number {
  const characters = new Map<number, number>();
  for (const line of pages.flat()) characters.set(line.size, (characters.get(line.size) ?? 0) + line.text.length);
  return [...characters.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [0, -1])[0];
}

function isHeadingCandidate(line: Line, body: number): boolean {
  return line.size >= body * HEADING_SIZE_RATIO && line.text.length <= MAX_HEADING_CHARS && /\p{L}/u.test(line.text);
}

/** Larger type ranks higher: the largest heading size is level 1. */
function headingLevels(pages: Line[][], body: number): Map<number, number> {
  const sizes = [
    ...new Set(
      pages
        .flat()
        .filter((line) => isHeadingCandidate(line, body))
        .map((line) => line.size),
    ),
  ];
  sizes.sort((a, b) => b - a);
  return new Map(sizes.map((size, index) => [size, Math.min(index + 1, 6)]));
}

/** Baseline-to-baseline distance of ordinary lines on the page, bounded so one-line paragraphs do not inflate it. */
function lineSpacing(lines: Line[], body: number): number {
  const gaps: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const gap = lines[i - 1]!.y - lines[i]!.y;
    if (gap > 0 && lines[i]!.size === lines[i - 1]!.size) gaps.push(gap);
  }
  gaps.sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)] ?? body * 1.2;
  return Math.min(Math.max(median, body), body * 1.5);
}

/** Line-end hyphenation ("re-" + "corded") is undone only when the next line continues in lower case. */
function joinLines(previous: string, next: string): string {
  if (/\p{L}[-\u00ad]$/u.test(previous) && /^\p{Ll}/u.test(next)) return previous.slice(0, -1) + next;
  return `${previous} ${next}`;
}

/**
 * Reading order is the content stream's order, which is right for single-column documents;
 * multi-column pages come out column by column when the generator wrote them that way.
 */
export function layoutBlocks(pages: PageText[]): Block[] {
  const linesByPage = withoutRunningLines(pages.map((page) => pageLines(page.runs)));
  const body = bodySize(linesByPage);
  const levels = headingLevels(linesByPage, body);
  const blocks: Block[] = [];

  pages.forEach(({ page }, pageIndex) => {
    const lines = linesByPage[pageIndex]!;
    const spacing = lineSpacing(lines, body);
    let previous: Line | undefined;
    for (const line of lines) {
      const last = blocks[blocks.length - 1];
      const gap = previous ? previous.y - line.y : Number.POSITIVE_INFINITY;
      const close = previous !== undefined && gap > 0 && gap <= spacing * PARAGRAPH_GAP_RATIO && line.size === previous.size;
      const level = isHeadingCandidate(line, body) ? levels.get(line.size) : undefined;
      if (level !== undefined) {
        // A heading that wraps onto a second line (at its own, larger line spacing) is one heading.
        const wraps = previous !== undefined && gap > 0 && gap <= line.size * 1.5 && line.size === previous.size;
        if (wraps && last?.kind === 'heading' && last.level === level && last.page === page) last.text += ` ${line.text}`;
        else blocks.push({ kind: 'heading', level, text: line.text, page });
      } else if (BULLET.test(line.text)) {
        blocks.push({ kind: 'list-item', text: line.text.replace(BULLET, ''), page });
      } else if (close && (last?.kind === 'paragraph' || last?.kind === 'list-item') && last.page === page) {
        // A wrapped bullet continues its list item; a wrapped line of prose its paragraph.
        last.text = joinLines(last.text, line.text);
      } else {
        blocks.push({ kind: 'paragraph', text: line.text, page });
      }
      previous = line;
    }
  });
  return blocks;
}
