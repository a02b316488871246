/**
 * Blocks flattened into lines. Plain-text and PDF extraction put whole articles, claims or even pages into
 * one paragraph block, so structure has to be recognised line by line; this is the stream every
 * structure-aware parser scans.
 */
import type { Block, ExtractedDocument } from '../../document-model';

export interface TextLine {
  kind: 'line';
  /** Without surrounding whitespace. */
  text: string;
  /** Leading spaces in the source (tabs as 4): centred display lines stand out by it. */
  indent: number;
  /** Lines sharing this number were one paragraph (or one list item) in the source. */
  paragraph: number;
  listItem: boolean;
  /** First and last line of its paragraph. */
  first: boolean;
  last: boolean;
  /** Level of a plain-text underline (`===` 1, `---` 2) that was under this line. */
  underline?: 1 | 2;
  page?: number;
}

interface HeadingItem {
  kind: 'heading';
  level: number;
  text: string;
  page?: number;
}

interface CodeItem {
  kind: 'code';
  text: string;
  page?: number;
}

export interface TableItem {
  kind: 'table';
  rows: string[][];
  name?: string;
  page?: number;
}

export type SourceItem = TextLine | HeadingItem | CodeItem | TableItem;

/** A line of only one repeated rule character: an underline under a heading, or a separator. */
const RULE_LINE = /^([=\-~_*#^])\1{2,}$/;
/** Text framed in an asterisk box (MPL-2.0 sets its disclaimers this way): `*  text  *`. */
const BOXED_LINE = /^\*(?:\s+(.*?))?\s*\*$/;

export function sourceItems(doc: ExtractedDocument): SourceItem[] {
  const items: SourceItem[] = [];
  let paragraph = 0;
  for (const block of doc.blocks) {
    switch (block.kind) {
      case 'heading':
        if (block.text.trim()) items.push({ kind: 'heading', level: block.level, text: block.text.trim(), page: block.page });
        break;
      case 'code':
        if (block.text.trim()) items.push({ kind: 'code', text: block.text.replace(/\s+$/, ''), page: block.page });
        break;
      case 'table':
        if (block.rows.some((row) => row.some((cell) => cell.trim()))) {
          items.push({ kind: 'table', rows: block.rows, name: block.name, page: block.page });
        }
        break;
      default:
        paragraph = pushTextLines(items, block, paragraph);
    }
  }
  return items;
}

/** Adds the lines of a paragraph or list item; blank lines left after removing decoration split it further. */
function pushTextLines(items: SourceItem[], block: Extract<Block, { text: string }>, paragraph: number): number {
  let current: TextLine[] = [];
  const close = (): void => {
    if (current.length === 0) return;
    current[0]!.first = true;
    current[current.length - 1]!.last = true;
    items.push(...current);
    current = [];
    paragraph++;
  };
  for (const raw of block.text.split(/\r?\n/)) {
    const unboxed = unbox(raw.replace(/\t/g, '    ').trimEnd());
    const text = unboxed.trim();
    if (RULE_LINE.test(text)) {
      const underlined = current.at(-1);
      if (underlined && !underlined.underline) underlined.underline = text.startsWith('=') ? 1 : 2;
      else close();
      continue;
    }
    if (!text) {
      close();
      continue;
    }
    current.push({
      kind: 'line',
      text,
      indent: unboxed.length - unboxed.trimStart().length,
      paragraph,
      listItem: block.kind === 'list-item',
      first: false,
      last: false,
      page: block.page,
    });
  }
  close();
  return paragraph;
}

function unbox(line: string): string {
  const match = BOXED_LINE.exec(line.trim());
  if (!match) return line;
  const inner = line.slice(line.indexOf('*') + 1, line.lastIndexOf('*'));
  return match[1] === undefined ? '' : inner.trimEnd();
}
