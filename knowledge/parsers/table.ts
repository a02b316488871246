/**
 * Tables (CSV, spreadsheets, tables inside documents): every row is one chunk (role `row`) reading
 * `header1: v1; header2: v2`, with metadata `row` (1-based among the table's data rows) and `table` (the
 * sheet or table name, when it has one). Text outside tables is chunked naive-style.
 *
 * Choice: rows are never grouped. A row is a record and is retrieved, cited and updated on its own;
 * grouping small rows would make a chunk match whatever its neighbours say. A row longer than chunkTokens
 * is split (`part`/`parts`). The first row is the header when it looks like one (filled, short, distinct,
 * not numbers); otherwise the columns are called `column 1`, `column 2`, ...
 */
import type { ChunkDraft, DocumentParser, ParserOptions } from '../document-model';
import { naiveChunks, unitChunks } from './shared/naive-chunks';
import { headingBlocks, outline } from './shared/outline';
import { prosePassage } from './shared/passages';
import { sourceItems, type SourceItem, type TableItem } from './shared/source-items';
import { columnNames, hasHeaderRow, rowAsRecord } from './shared/table-rows';

export const tableParser: DocumentParser = {
  id: 'table',
  description:
    'Tables and spreadsheets: one chunk per row as "header: value; ..." with its row number and sheet or table name; text outside tables is chunked naive-style.',
  parse(doc, options) {
    return outline(sourceItems(doc), headingBlocks).flatMap((section) =>
      runsOfTablesAndText(section.body).flatMap((run) =>
        run.kind === 'table' ? rowChunks(run, section.path, options) : naiveChunks(run.items, section.path, options),
      ),
    );
  },
};

type Run = TableItem | { kind: 'text'; items: SourceItem[] };

function runsOfTablesAndText(items: readonly SourceItem[]): Run[] {
  const runs: Run[] = [];
  for (const item of items) {
    const last = runs[runs.length - 1];
    if (item.kind === 'table') runs.push(item);
    else if (last?.kind === 'text') last.items.push(item);
    else runs.push({ kind: 'text', items: [item] });
  }
  return runs;
}

function rowChunks(table: TableItem, sectionPath: readonly string[], options: ParserOptions): ChunkDraft[] {
  const columns = columnNames(table.rows);
  const dataRows = hasHeaderRow(table.rows) ? table.rows.slice(1) : table.rows;
  const path = table.name ? [...sectionPath, table.name] : [...sectionPath];
  return dataRows.flatMap((row, index) => {
    const record = rowAsRecord(row, columns);
    if (!record) return [];
    const metadata = { row: index + 1, ...(table.name ? { table: table.name } : {}) };
    return unitChunks([prosePassage(record, table.page)], path, options, { role: 'row', metadata });
  });
}
