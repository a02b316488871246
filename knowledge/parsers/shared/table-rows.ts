/**
 * Reading a table's rows as records: is the first row a header, and how a row reads with it.
 */

/** Numbers, amounts, times and dates: values, never column names. */
const VALUE = /^[-+]?[\d.,:/%$€£¥ -]*\d[\d.,:/%$€£¥ -]*$/;

/** Looks like a header: more rows follow, every cell is filled, short and distinct, and none is a value (number, time, date) or a question. */
export function hasHeaderRow(rows: readonly (readonly string[])[]): boolean {
  const [first, ...rest] = rows;
  if (!first || rest.length === 0) return false;
  const cells = first.map((cell) => cell.trim());
  if (cells.some((cell) => cell === '' || VALUE.test(cell) || /[?？]$/.test(cell))) return false;
  if (cells.some((cell) => cell.split(/\s+/).length > 8)) return false;
  return new Set(cells.map((cell) => cell.toLowerCase())).size === cells.length;
}

/** Column names: the header's cells, or `column n` when the table has no header. */
export function columnNames(rows: readonly (readonly string[])[]): string[] {
  const width = Math.max(0, ...rows.map((row) => row.length));
  const header = hasHeaderRow(rows) ? rows[0]! : [];
  return Array.from({ length: width }, (_, index) => header[index]?.trim() || `column ${index + 1}`);
}

/** `header1: v1; header2: v2`, leaving out empty cells. */
export function rowAsRecord(row: readonly string[], columns: readonly string[]): string {
  return row
    .map((cell, index) => [columns[index] ?? `column ${index + 1}`, cell.replace(/\s+/g, ' ').trim()] as const)
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
}
