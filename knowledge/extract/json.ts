import { type Block, type ExtractedDocument, ExtractionError } from '../document-model';
import { decodeText } from './decode-text';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const MAX_HEADING_LEVEL = 6;

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTableOfRecords(value: Json): value is JsonObject[] {
  return Array.isArray(value) && value.length > 0 && value.every(isObject);
}

function scalarText(value: Json): string {
  if (value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Records become rows under the union of their keys, in first-seen order. */
function recordsTable(records: JsonObject[], name?: string): Block {
  const header = [...new Set(records.flatMap((record) => Object.keys(record)))];
  const rows = records.map((record) => header.map((key) => (key in record ? scalarText(record[key]!) : '')));
  return name === undefined ? { kind: 'table', rows: [header, ...rows] } : { kind: 'table', name, rows: [header, ...rows] };
}

/**
 * Nested objects become headings named by their key path (so a chunk read on its own still says
 * where it sits), at a level that follows the nesting; leaves become `key: value` paragraphs.
 */
function walk(value: Json, path: string[], blocks: Block[]): void {
  const key = path[path.length - 1];
  const label = path.join('.');
  if (isTableOfRecords(value)) {
    if (key !== undefined) blocks.push({ kind: 'heading', level: Math.min(path.length, MAX_HEADING_LEVEL), text: label });
    blocks.push(key === undefined ? recordsTable(value) : recordsTable(value, label));
  } else if (isObject(value)) {
    if (key !== undefined) blocks.push({ kind: 'heading', level: Math.min(path.length, MAX_HEADING_LEVEL), text: label });
    for (const [childKey, child] of Object.entries(value)) walk(child, [...path, childKey], blocks);
  } else if (Array.isArray(value)) {
    if (value.every((item) => !isObject(item) && !Array.isArray(item))) {
      if (key === undefined) blocks.push(...value.map((item): Block => ({ kind: 'list-item', text: scalarText(item) })));
      else blocks.push({ kind: 'paragraph', text: `${key}: ${value.map(scalarText).join(', ')}` });
    } else {
      value.forEach((item, index) => walk(item, [...path.slice(0, -1), `${key ?? ''}[${index}]`], blocks));
    }
  } else {
    blocks.push({ kind: 'paragraph', text: key === undefined ? scalarText(value) : `${key}: ${scalarText(value)}` });
  }
}

/** JSON Lines (one value per line) is read as an array of those values. */
function parseJsonOrLines(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (wholeError) {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
    if (lines.length > 1) {
      try {
        return lines.map((line) => JSON.parse(line) as Json);
      } catch {
        // Report the error of the whole-document parse, which is what the user most likely meant.
      }
    }
    const detail = wholeError instanceof Error ? `: ${wholeError.message}` : '';
    throw new ExtractionError('corrupt', `the file is not valid JSON${detail}`);
  }
}

export function extractJson(bytes: Buffer): ExtractedDocument {
  const blocks: Block[] = [];
  walk(parseJsonOrLines(decodeText(bytes)), [], blocks);
  return { blocks };
}
