/**
 * Passages: the paragraphs, lists, tables and code of a section, each cut into the units a chunk may
 * break between (sentences, list items, rows, lines).
 */
import { splitSentences } from './sentences';
import type { SourceItem, TextLine } from './source-items';

export interface Passage {
  /** The units concatenated: `units.join('') === text`. */
  text: string;
  units: string[];
  page?: number;
}

/** A prose passage breaks between sentences. */
export function prosePassage(text: string, page?: number): Passage {
  return { text, units: splitSentences(text), page };
}

/** A passage that breaks only between its lines (list items, rows, code lines, references). */
export function linesPassage(lines: readonly string[], page?: number): Passage {
  const units = lines.map((line, index) => (index < lines.length - 1 ? `${line}\n` : line));
  return { text: units.join(''), units, page };
}

/** A table row as text: `a | b | c`. */
function tableRowText(cells: readonly string[]): string {
  return cells.map((cell) => cell.replace(/\s+/g, ' ').trim()).join(' | ');
}

function tablePassage(rows: readonly string[][], name?: string, page?: number): Passage {
  const lines = rows.filter((row) => row.some((cell) => cell.trim())).map(tableRowText);
  return linesPassage(name ? [name, ...lines] : lines, page);
}

/**
 * Passages of a run of items: lines of one source paragraph make one prose passage; consecutive list
 * items make one list passage (an item per unit).
 */
export function passagesOf(items: readonly SourceItem[]): Passage[] {
  const passages: Passage[] = [];
  let paragraph: TextLine[] = [];
  let listItems: TextLine[][] = [];

  const flushParagraph = (): void => {
    if (paragraph.length === 0) return;
    passages.push(prosePassage(paragraph.map((line) => line.text).join('\n'), paragraph[0]!.page));
    paragraph = [];
  };
  const flushList = (): void => {
    if (listItems.length === 0) return;
    passages.push(linesPassage(listItems.map(joinLines), listItems[0]![0]!.page));
    listItems = [];
  };

  for (const item of items) {
    if (item.kind === 'line' && item.listItem) {
      flushParagraph();
      const last = listItems[listItems.length - 1];
      if (last && last[0]!.paragraph === item.paragraph) last.push(item);
      else listItems.push([item]);
      continue;
    }
    flushList();
    if (item.kind === 'line') {
      if (paragraph.length > 0 && paragraph[0]!.paragraph !== item.paragraph) flushParagraph();
      paragraph.push(item);
      continue;
    }
    flushParagraph();
    if (item.kind === 'table') passages.push(tablePassage(item.rows, item.name, item.page));
    else if (item.kind === 'code') passages.push(linesPassage(item.text.split('\n'), item.page));
    else passages.push(prosePassage(item.text, item.page));
  }
  flushParagraph();
  flushList();
  return passages;
}

function joinLines(lines: readonly TextLine[]): string {
  return lines.map((line) => line.text).join('\n');
}
