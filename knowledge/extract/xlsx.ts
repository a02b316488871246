import ExcelJS from 'exceljs';
import { type Block, type ExtractedDocument, ExtractionError } from '../document-model';
import { rejectCompoundFile } from './compound-file';
import { assertZipWithinLimits, type ZipLimits } from './zip-limits';

/** Excel shows 15 significant digits; more would index binary floating-point noise (0.1+0.2). */
function numberText(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(15)));
}

/** Dates come back as UTC instants; a date without a time of day is written as the date alone. */
function dateText(value: Date): string {
  if (Number.isNaN(value.getTime())) return '';
  const iso = value.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z');
}

/** The text a reader sees in the cell, from each shape of value exceljs returns. */
function cellText(value: ExcelJS.CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return dateText(value);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('error' in value) return value.error;
  if ('formula' in value || 'sharedFormula' in value) {
    // Files written by tools that do not calculate (openpyxl, some exports) have no cached result.
    if (value.result !== undefined) return cellText(value.result);
    return 'formula' in value && value.formula ? `=${value.formula}` : '';
  }
  if ('hyperlink' in value) return typeof value.text === 'string' ? value.text : cellText(value.text);
  return '';
}

function sheetRows(sheet: ExcelJS.Worksheet): string[][] {
  // columnCount walks every row, so it is read once, not per cell.
  const width = sheet.columnCount;
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    const cells: string[] = [];
    for (let c = 1; c <= width; c++) cells.push(cellText(row.getCell(c).value).trim());
    if (cells.some((cell) => cell !== '')) rows.push(cells);
  });
  // Columns that are empty in every row are layout (spacer columns), not data.
  const used = Array.from({ length: width }, (_, c) => rows.some((cells) => cells[c] !== ''));
  return rows.map((cells) => cells.filter((_, c) => used[c]));
}

/** One table block per non-empty sheet, named after the sheet; pageCount is the number of sheets. */
export async function extractXlsx(bytes: Buffer, zipLimits?: ZipLimits): Promise<ExtractedDocument> {
  rejectCompoundFile(bytes, '.xlsx');
  const entries = await assertZipWithinLimits(bytes, 'Excel workbook', zipLimits);
  if (!entries.some((entry) => entry.name === 'xl/workbook.xml')) {
    throw new ExtractionError('corrupt', 'the file is a ZIP archive but not an Excel workbook (no xl/workbook.xml)');
  }
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs declares its own Buffer type; a Node Buffer is what it reads at run time.
    await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  } catch {
    throw new ExtractionError('corrupt', 'the Excel workbook is damaged and cannot be read');
  }
  const blocks: Block[] = [];
  workbook.worksheets.forEach((sheet, index) => {
    const rows = sheetRows(sheet);
    if (rows.length > 0) blocks.push({ kind: 'table', name: sheet.name, rows, page: index + 1 });
  });
  return { blocks, pageCount: workbook.worksheets.length };
}
