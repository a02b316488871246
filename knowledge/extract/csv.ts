import { parse } from 'csv-parse/sync';
import { type ExtractedDocument, ExtractionError } from '../document-model';
import { decodeText } from './decode-text';

const CANDIDATE_DELIMITERS = [',', ';', '\t', '|'] as const;
const SAMPLE_LINES = 50;

/**
 * Picks the delimiter that splits the first lines into the same number of fields most often
 * (quoted text removed first, so a comma inside quotes does not count); more fields break ties.
 * European exports use ';' because ',' is their decimal separator, so counting alone would fail.
 */
export function detectDelimiter(text: string): string {
  const lines = text
    .replace(/"(?:[^"]|"")*"/g, '""')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(0, SAMPLE_LINES);
  let best: { delimiter: string; consistentLines: number; fields: number } = { delimiter: ',', consistentLines: 0, fields: 0 };
  for (const delimiter of CANDIDATE_DELIMITERS) {
    const counts = lines.map((line) => line.split(delimiter).length - 1);
    const first = counts[0] ?? 0;
    if (first === 0) continue;
    const consistentLines = counts.filter((count) => count === first).length;
    if (consistentLines > best.consistentLines || (consistentLines === best.consistentLines && first > best.fields)) {
      best = { delimiter, consistentLines, fields: first };
    }
  }
  return best.delimiter;
}

/** One table block, header row first; blank rows are dropped, ragged rows kept as they are. */
export function extractCsv(bytes: Buffer): ExtractedDocument {
  const text = decodeText(bytes);
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter: detectDelimiter(text),
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    });
  } catch (error) {
    const detail = error instanceof Error ? `: ${error.message.split('\n')[0]}` : '';
    throw new ExtractionError('corrupt', `the CSV file cannot be parsed${detail}`);
  }
  const nonEmpty = rows.filter((row) => row.some((cell) => cell !== ''));
  return { blocks: nonEmpty.length > 0 ? [{ kind: 'table', rows: nonEmpty }] : [] };
}
