import TurndownService from 'turndown';
import { collapseWhitespace } from './require-text';

/** The few DOM members we read from turndown's own (domino) nodes; the project builds without DOM types. */
interface DomNode {
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
  parentNode: DomNode | null;
  getAttribute?(name: string): string | null;
}

/** Page furniture and non-content elements that would only add noise to the index. */
const DROPPED_ELEMENTS = ['script', 'style', 'noscript', 'template', 'nav', 'iframe', 'object', 'embed', 'svg', 'canvas'];

function childElements(node: DomNode, names: string[]): DomNode[] {
  return Array.from(node.childNodes).filter((child) => names.includes(child.nodeName.toLowerCase()));
}

/** Rows of this table only: a table nested in a cell contributes its text to that cell. */
function tableRows(table: DomNode): string[][] {
  const rowElements = childElements(table, ['thead', 'tbody', 'tfoot']).flatMap((section) => childElements(section, ['tr']));
  const rows = [...childElements(table, ['tr']), ...rowElements];
  // The header row goes first even when the source puts a <thead> after loose rows.
  rows.sort((a, b) => Number(isHeaderRow(b)) - Number(isHeaderRow(a)));
  return rows.map((row) =>
    childElements(row, ['th', 'td']).flatMap((cell) => {
      const span = Math.min(Math.max(Number(cell.getAttribute?.('colspan') ?? 1) || 1, 1), 50);
      // Spanned columns become empty cells so that later cells stay under their header.
      return [collapseWhitespace(cell.textContent ?? ''), ...Array<string>(span - 1).fill('')];
    }),
  );
}

function isHeaderRow(row: DomNode): boolean {
  return row.parentNode?.nodeName.toLowerCase() === 'thead';
}

/** A GFM table that markdown-it reads back cell for cell; rows are padded as GFM drops extra cells. */
function toMarkdownTable(rows: string[][], escape: (text: string) => string): string {
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (width === 0) return '';
  const line = (cells: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => escape(cells[i] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return ['', '', line(header), `|${' --- |'.repeat(width)}`, ...body.map(line), '', ''].join('\n');
}

export interface HtmlAsMarkdown {
  markdown: string;
  /** Text of the `<title>` element, when there is one. */
  title?: string;
}

/** HTML to Markdown with turndown (which parses with its own DOM in Node), keeping tables as GFM tables. */
export function htmlToMarkdown(html: string): HtmlAsMarkdown {
  let title: string | undefined;
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(DROPPED_ELEMENTS as TurndownService.Filter);
  service.addRule('title', {
    filter: 'title' as TurndownService.Filter,
    replacement: (_content, node) => {
      title ??= collapseWhitespace((node as unknown as DomNode).textContent ?? '') || undefined;
      return '';
    },
  });
  service.addRule('table', {
    filter: 'table' as TurndownService.Filter,
    replacement: (_content, node) => {
      const table = node as unknown as DomNode;
      return toMarkdownTable(tableRows(table), (text) => service.escape(text));
    },
  });
  const markdown = service.turndown(html);
  return title === undefined ? { markdown } : { markdown, title };
}
