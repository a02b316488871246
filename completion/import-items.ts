import { parse } from 'csv-parse/sync';
import { detectDelimiter } from '../knowledge/extract/csv';

/**
 * The `import` scenario's items: requirements or bugs read from CSV, JSON or a Markdown list
 * (the `structured` processor), or from the JSON a model was asked to return (the `llm`
 * processor). Both end in the same validation. Pure: no I/O.
 */
export type ImportMode = 'requirements' | 'bugs';
type SourceFormat = 'csv' | 'json' | 'markdown';

type ImportItem = {
  title: string;
  description?: string;
  /** requirements and bugs: critical, high, medium or low when recognisable, else as given. */
  priority?: string;
  /** bugs: critical, major, minor or trivial when recognisable, else as given. */
  severity?: string;
  acceptance_criteria?: string;
  steps_to_reproduce?: string;
  expected?: string;
  actual?: string;
  component?: string;
  external_id?: string;
  labels?: string[];
  /** Columns or keys that match no field, as text. */
  extra?: Record<string, string>;
};

/** A row that was not imported; `row` is 1-based among the items (CSV: the first row under the header is 1). */
type ImportRowError = { row?: number; message: string };

export interface ImportResult {
  source_format: SourceFormat;
  items: ImportItem[];
  errors: ImportRowError[];
  /** Items imported (rows in `errors` are not counted). */
  count: number;
}

/** The input holds no CSV table with a title column, JSON array or Markdown list. */
export class NotImportableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotImportableError';
  }
}

const MAX_TITLE_CHARS = 500;

type Field = Exclude<keyof ImportItem, 'extra'>;

/** Column and key names per field, best first (compared lowercased, without spaces or punctuation). */
const ALIASES: Array<[Field, string[]]> = [
  [
    'title',
    [
      'title',
      'summary',
      'name',
      'subject',
      'headline',
      'requirement',
      'requirementtitle',
      'issuetitle',
      'bugtitle',
      'userstory',
      'story',
      'feature',
      'issue',
      'bug',
      'task',
    ],
  ],
  ['description', ['description', 'desc', 'details', 'detail', 'body', 'text', 'content', 'notes', 'note']],
  ['priority', ['priority', 'prio', 'importance', 'moscow']],
  ['severity', ['severity', 'sev', 'impact', 'seriousness']],
  ['acceptance_criteria', ['acceptancecriteria', 'acceptance', 'criteria', 'ac']],
  ['steps_to_reproduce', ['stepstoreproduce', 'steps', 'reprosteps', 'reproductionsteps', 'repro', 'howtoreproduce', 'str']],
  ['expected', ['expected', 'expectedresult', 'expectedbehavior', 'expectedbehaviour']],
  ['actual', ['actual', 'actualresult', 'actualbehavior', 'actualbehaviour']],
  ['component', ['component', 'module', 'area']],
  ['external_id', ['id', 'key', 'externalid', 'issuekey', 'ticket', 'ref', 'reference', 'number']],
  ['labels', ['labels', 'label', 'tags', 'tag']],
];

/** Fields that belong to one kind of item; under the other they are kept in `extra`. */
const ONLY_FOR: Partial<Record<Field, ImportMode>> = {
  acceptance_criteria: 'requirements',
  severity: 'bugs',
  steps_to_reproduce: 'bugs',
  expected: 'bugs',
  actual: 'bugs',
};

const normaliseKey = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, '');

const ALIAS_RANK = new Map<string, { field: Field; rank: number }>();
for (const [field, names] of ALIASES) names.forEach((name, rank) => ALIAS_RANK.set(name, { field, rank }));

const TITLE_NAMES = ALIASES[0]![1];
const TITLE_HINT = 'title, summary or name';

/** Which field each column (or key) fills: the best-ranked name wins a field; the others go to `extra`. */
function mapColumns(names: string[], mode: ImportMode): Array<Field | null> {
  const best = new Map<Field, { index: number; rank: number }>();
  names.forEach((name, index) => {
    const alias = ALIAS_RANK.get(normaliseKey(name));
    if (!alias || (ONLY_FOR[alias.field] && ONLY_FOR[alias.field] !== mode)) return;
    const current = best.get(alias.field);
    if (!current || alias.rank < current.rank) best.set(alias.field, { index, rank: alias.rank });
  });
  const fields: Array<Field | null> = names.map(() => null);
  for (const [field, { index }] of best) fields[index] = field;
  return fields;
}

// ---------------------------------------------------------------------------------------------
// Priority and severity

const PRIORITY_WORDS: Record<string, string> = {};
const SEVERITY_WORDS: Record<string, string> = {};
const define = (table: Record<string, string>, level: string, words: string) => words.split(' ').forEach((w) => (table[w] = level));
define(PRIORITY_WORDS, 'critical', 'critical blocker highest urgent showstopper p0 0 1');
define(PRIORITY_WORDS, 'high', 'high major important must musthave p1 2');
define(PRIORITY_WORDS, 'medium', 'medium normal moderate should shouldhave p2 3');
define(PRIORITY_WORDS, 'low', 'low lowest minor trivial could couldhave wont wonthave nicetohave p3 p4 4 5');
define(SEVERITY_WORDS, 'critical', 'critical blocker fatal crash highest urgent showstopper s0 s1 sev0 sev1 p0 0 1');
define(SEVERITY_WORDS, 'major', 'major high serious severe s2 sev2 p1 2');
define(SEVERITY_WORDS, 'minor', 'minor medium normal moderate low s3 sev3 p2 3');
define(SEVERITY_WORDS, 'trivial', 'trivial cosmetic lowest s4 sev4 p3 p4 4 5');

/** The level a value names (`P1 - High`, `Sev 2`, `Blocker`), if any. */
function levelOf(value: string, table: Record<string, string>): string | undefined {
  const whole = table[normaliseKey(value)];
  if (whole) return whole;
  const spaced = /\b(s|sev|p)\s*(\d)\b/i.exec(value);
  if (spaced && table[`${spaced[1]!.toLowerCase()}${spaced[2]}`]) return table[`${spaced[1]!.toLowerCase()}${spaced[2]}`];
  for (const token of value.toLowerCase().split(/[^a-z0-9]+/)) if (token && table[token]) return table[token];
  return undefined;
}

/** critical, high, medium or low when recognisable, else the value as given. */
export const normalisePriority = (value: string) => levelOf(value, PRIORITY_WORDS) ?? value;
/** critical, major, minor or trivial when recognisable, else the value as given. */
export const normaliseSeverity = (value: string) => levelOf(value, SEVERITY_WORDS) ?? value;

// ---------------------------------------------------------------------------------------------
// Rows to items

const textOf = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map(textOf).filter(Boolean).join('\n');
  if (typeof value === 'object') return JSON.stringify(value);
  // What typeof leaves: a number, bigint, boolean, symbol or function.
  const scalar = value as number | bigint | boolean | symbol | (() => unknown);
  return String(scalar);
};

const labelsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(textOf) : textOf(value).split(/[,;|]/)).map((l) => l.trim()).filter(Boolean);

type RowOutcome = { item: ImportItem } | { error: string };

/** One row's named values as an item, or why it cannot be one. */
function toItem(entries: Array<[name: string, field: Field | null, value: unknown]>): RowOutcome {
  const item: Partial<ImportItem> = {};
  const extra: Record<string, string> = {};
  for (const [name, field, value] of entries) {
    if (field === 'labels') {
      const labels = labelsOf(value);
      if (labels.length > 0) item.labels = labels;
      continue;
    }
    const text = textOf(value);
    if (!text) continue;
    if (field === null) extra[name] = text;
    else if (field === 'priority') item.priority = normalisePriority(text);
    else if (field === 'severity') item.severity = normaliseSeverity(text);
    else item[field] = text;
  }
  const title = item.title?.replace(/\s+/g, ' ').trim();
  if (!title) return { error: `no title (expected a non-empty ${TITLE_HINT})` };
  if (title.length > MAX_TITLE_CHARS) return { error: `the title is longer than ${MAX_TITLE_CHARS} characters` };
  item.title = title;
  if (Object.keys(extra).length > 0) item.extra = extra;
  // Keep the fields in one order whatever the source's column order.
  const ordered: ImportItem = { title };
  for (const [field] of ALIASES)
    if (field !== 'title' && item[field] !== undefined) (ordered as Record<string, unknown>)[field] = item[field];
  if (item.extra) ordered.extra = item.extra;
  return { item: ordered };
}

function collect(format: SourceFormat, rows: Array<{ row: number; outcome: RowOutcome }>): ImportResult {
  const items: ImportItem[] = [];
  const errors: ImportRowError[] = [];
  for (const { row, outcome } of rows) {
    if ('item' in outcome) items.push(outcome.item);
    else errors.push({ row, message: outcome.error });
  }
  return { source_format: format, items, errors, count: items.length };
}

// ---------------------------------------------------------------------------------------------
// JSON

const LIST_KEYS = ['items', 'requirements', 'bugs', 'issues', 'data', 'rows', 'records'];

/** The item list a JSON value holds: an array, `{items: [...]}` (or requirements, bugs, ...), or one item object. */
function jsonList(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value as unknown[];
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record))
      if (LIST_KEYS.includes(key.toLowerCase()) && Array.isArray(record[key])) return record[key] as unknown[];
    if (Object.keys(record).some((k) => ALIAS_RANK.get(normaliseKey(k))?.field === 'title')) return [record];
  }
  return null;
}

function jsonItems(list: unknown[], mode: ImportMode): ImportResult {
  return collect(
    'json',
    list.map((value, i) => {
      if (typeof value === 'string') return { row: i + 1, outcome: toItem([['title', 'title', value]]) };
      if (!value || typeof value !== 'object' || Array.isArray(value))
        return { row: i + 1, outcome: { error: 'not an object with a title' } };
      const keys = Object.keys(value);
      const fields = mapColumns(keys, mode);
      return { row: i + 1, outcome: toItem(keys.map((k, j) => [k, fields[j]!, (value as Record<string, unknown>)[k]])) };
    }),
  );
}

/** The end (exclusive) of the JSON array or object opening at `start`, strings skipped; -1 when unbalanced. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') stack.push(c === '[' ? ']' : '}');
    else if (c === ']' || c === '}') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Openings tried before giving up: each costs a scan to the end of the text when it is unbalanced. */
const MAX_JSON_CANDIDATES = 50;

/** The first JSON array or object in `text` that parses and holds items (`lineStart`: only ones opening a line). */
function findJson(text: string, lineStart: boolean): unknown[] | null {
  const opener = lineStart ? /^[ \t]*([[{])/gm : /[[{]/g;
  let tries = 0;
  for (let m = opener.exec(text); m && tries < MAX_JSON_CANDIDATES; m = opener.exec(text), tries++) {
    const start = m.index + m[0].length - 1;
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, end));
    } catch {
      continue; // Not JSON (a Markdown link, a bracketed tag, a JavaScript literal): look further, inside it too.
    }
    const list = jsonList(value);
    // `[2]` in a sentence is no item list; `[]` is one (nothing to import).
    if (list && (list.length === 0 || list.some((v) => typeof v === 'string' || (v !== null && typeof v === 'object')))) return list;
    opener.lastIndex = end;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// CSV (and the `a | b` tables attachments become)

const DELIMITERS = [',', ';', '\t', '|'] as const;
const TABLE_SEPARATOR = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/;

const stripPipes = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');

function cellsOf(line: string, delimiter: string, outerPipes = false): string[] {
  try {
    const [row] = parse(outerPipes ? stripPipes(line) : line, {
      delimiter,
      relax_quotes: true,
      relax_column_count: true,
      trim: true,
    });
    return row ?? [];
  } catch {
    return [];
  }
}

interface TableHead {
  index: number;
  delimiter: string;
  /** A Markdown table (`| a | b |`): every row's outer pipes are dropped. Without them a leading `|` is an empty first cell. */
  outerPipes: boolean;
  names: string[];
}

const TITLE_WORD = new RegExp(`\\b(?:${TITLE_NAMES.join('|')}|user\\s*story|issue\\s*title|bug\\s*title)\\b`, 'i');

/** The first line that reads as a header row with a title column, under a delimiter the next line shares. */
function findTableHead(lines: string[]): TableHead | null {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!TITLE_WORD.test(line)) continue;
    const next = lines.slice(i + 1).find((l) => l.trim() !== '' && !TABLE_SEPARATOR.test(l.trim()));
    for (const delimiter of DELIMITERS) {
      if (!line.includes(delimiter)) continue;
      const outerPipes = delimiter === '|' && line.trim().startsWith('|');
      const names = cellsOf(line, delimiter, outerPipes);
      if (names.length < 2 || !names.some((n) => ALIAS_RANK.get(normaliseKey(n))?.field === 'title')) continue;
      // A lone header row is a table too; otherwise the next row must split the same way.
      if (next !== undefined && cellsOf(next, delimiter, outerPipes).length < 2) continue;
      return { index: i, delimiter, outerPipes, names };
    }
  }
  return null;
}

/** The header of something that looks like CSV but has no title column (for the error message). */
function headerWithoutTitle(text: string): string[] | null {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  for (let i = 0; i + 2 < lines.length; i++) {
    const sample = lines.slice(i, i + 3);
    const delimiter = detectDelimiter(sample.join('\n'));
    const counts = sample.map((l) => cellsOf(l, delimiter).length);
    if (counts[0]! >= 2 && counts.every((c) => c === counts[0])) return cellsOf(lines[i]!, delimiter);
  }
  return null;
}

function tableItems(lines: string[], head: TableHead, mode: ImportMode, wholeBlock: boolean): ImportResult {
  const body: string[] = [];
  for (const line of lines.slice(head.index + 1)) {
    if (line.trim() === '') {
      if (wholeBlock) continue;
      break;
    }
    if (head.delimiter === '|' && TABLE_SEPARATOR.test(line.trim())) continue;
    body.push(head.outerPipes ? stripPipes(line) : line);
  }
  let rows: string[][];
  try {
    rows = parse(body.join('\n'), {
      delimiter: head.delimiter,
      relax_quotes: true,
      relax_column_count: true,
      trim: true,
      skip_empty_lines: true,
    });
  } catch (err) {
    throw new NotImportableError(`the CSV cannot be parsed: ${(err as Error).message.split('\n')[0]}`);
  }
  const fields = mapColumns(head.names, mode);
  return collect(
    'csv',
    rows.flatMap((cells, i) => {
      // A row of empty cells (a spreadsheet's trailing rows) is no item and no error.
      if (cells.every((c) => c === '')) return [];
      const overflow = cells.slice(head.names.length).filter((c) => c !== '');
      if (overflow.length > 0) {
        return {
          row: i + 1,
          outcome: {
            error: `${cells.length} fields but the header has ${head.names.length} (a value with an unquoted "${head.delimiter}"?)`,
          },
        };
      }
      return { row: i + 1, outcome: toItem(head.names.map((name, j) => [name, fields[j]!, cells[j] ?? ''])) };
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Markdown list

const LIST_ITEM = /^(\s*)(?:[-*+]|\d+[.)])(?:\s+(.*))?$/;

/** `**Title**: text`, `Title: text`, `[ ] Title`, `[high] Title`: title, description and a leading level tag. */
function splitListItem(raw: string, mode: ImportMode): { title: string; description: string; level?: string } {
  let text = raw.trim().replace(/^\[[ xX]\]\s+/, '');
  let level: string | undefined;
  const tag = /^(?:\[([\w -]{1,20})\]|\(([\w -]{1,20})\))\s+/.exec(text);
  const tagText = (tag?.[1] ?? tag?.[2])?.trim();
  // Only a tag that names a level is taken off the title (`[P1] Export`, `(blocker) Crash`).
  if (tag && tagText && levelOf(tagText, mode === 'bugs' ? SEVERITY_WORDS : PRIORITY_WORDS)) {
    level = tagText;
    text = text.slice(tag[0].length);
  }
  const bold = /^(\*\*|__)(.+?)\1\s*(.*)$/.exec(text);
  if (bold) return { title: bold[2]!.replace(/:$/, '').trim(), description: bold[3]!.replace(/^[:\-–—]\s*/, '').trim(), level };
  const colon = /^(.*?):\s+(.*)$/.exec(text);
  if (colon && colon[1]!.trim()) return { title: colon[1]!.trim(), description: colon[2]!.trim(), level };
  return { title: text.replace(/:$/, '').trim(), description: '', level };
}

function listItems(lines: string[], mode: ImportMode): ImportResult | null {
  const entries: Array<{ text: string; more: string[] }> = [];
  let topIndent: number | null = null;
  let inList = false;
  for (const line of lines) {
    // A thematic break (`- - -`) is not an item.
    const m = /^\s*([-*_])(\s*\1){2,}\s*$/.test(line) ? null : LIST_ITEM.exec(line);
    const indent = m ? m[1]!.replace(/\t/g, '    ').length : 0;
    if (m && (topIndent === null || indent <= topIndent)) {
      topIndent = topIndent ?? indent;
      entries.push({ text: m[2] ?? '', more: [] });
      inList = true;
    } else if (inList && entries.length > 0 && line.trim() !== '' && (m || /^\s+/.test(line))) {
      // A nested item or an indented continuation belongs to the item above.
      entries[entries.length - 1]!.more.push((m ? (m[2] ?? '') : line).trim());
    } else if (line.trim() !== '') {
      inList = false;
    }
  }
  if (entries.length === 0) return null;
  const levelField: Field = mode === 'bugs' ? 'severity' : 'priority';
  return collect(
    'markdown',
    entries.map((entry, i) => {
      const { title, description, level } = splitListItem(entry.text, mode);
      const values: Array<[string, Field | null, unknown]> = [
        ['title', 'title', title],
        ['description', 'description', [description, ...entry.more].filter(Boolean).join('\n')],
      ];
      if (level !== undefined) values.push([levelField, levelField, level]);
      return { row: i + 1, outcome: toItem(values) };
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Entry points

const FENCE = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;

function parseBlock(text: string, lang: string, mode: ImportMode, fenced: boolean): ImportResult | null {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (lang === 'json' || lang === '' || !fenced) {
    const list = findJson(text, !fenced || lang === '');
    if (list) return jsonItems(list, mode);
    if (lang === 'json') {
      try {
        JSON.parse(text);
      } catch (err) {
        throw new NotImportableError(`the JSON block is not valid JSON: ${(err as Error).message}`);
      }
      throw new NotImportableError('the JSON block holds no array of items (expected [...] or {"items": [...]})');
    }
  }
  if (['csv', 'tsv', 'psv', '', 'text', 'txt', 'markdown', 'md'].includes(lang) || !fenced) {
    const head = findTableHead(lines);
    if (head) return tableItems(lines, head, mode, fenced);
  }
  if (['markdown', 'md', '', 'text', 'txt'].includes(lang) || !fenced) {
    const list = listItems(lines, mode);
    if (list) return list;
  }
  return null;
}

/**
 * Items of the data in `text` (the question and the attachments' text): the first fenced block
 * that holds data, else the first JSON array or object opening a line, else the first table whose
 * header names a title column, else the Markdown list items. Rows without a title are reported in
 * `errors` and not counted. Throws NotImportableError when nothing importable is found.
 */
export function parseImport(text: string, options: { mode: ImportMode }): ImportResult {
  for (const fence of text.matchAll(FENCE)) {
    const result = parseBlock(fence[3]!, fence[2]!.toLowerCase(), options.mode, true);
    if (result) return result;
  }
  const result = parseBlock(text, '', options.mode, false);
  if (result) return result;
  const header = headerWithoutTitle(text);
  if (header) {
    throw new NotImportableError(`the table's header (${header.slice(0, 10).join(', ')}) has no title column: name one ${TITLE_HINT}`);
  }
  throw new NotImportableError(
    `nothing to import: expected CSV with a header row naming a ${TITLE_HINT} column, a JSON array of items, or a Markdown list`,
  );
}

/** What the `llm` import processor asks of the model: the items as one JSON array, which parseModelImport reads. */
export const IMPORT_INSTRUCTIONS = [
  "Extract every requirement or bug described in the user's message and attachments, in their order. Do not invent items.",
  'Reply with one JSON array in a ```json fenced block, then at most one sentence of summary. Each element is an object:',
  '{"title": "short title (required)", "description": "details", "external_id": "the source\'s id if any", "labels": ["..."],',
  ' for requirements: "priority": "critical" | "high" | "medium" | "low", "acceptance_criteria": "...",',
  ' for bugs: "severity": "critical" | "major" | "minor" | "trivial", "priority": "...", "steps_to_reproduce": "...", "expected": "...", "actual": "...", "component": "..."}',
  'Leave out any field the input does not give. If the input holds no requirement or bug, reply with an empty array [].',
].join('\n');

const BUG_KEYS = new Set<Field>(['severity', 'steps_to_reproduce', 'expected', 'actual']);

/**
 * The items of a model's import answer: the JSON array in its ```json block (or the first JSON
 * array or `{items: [...]}` in the text), validated as parseImport validates JSON. Without
 * `mode`, items with a severity or reproduction steps make it a bug import. Never throws: an
 * answer without JSON is reported in `errors`.
 */
export function parseModelImport(answerText: string, options: { mode?: ImportMode } = {}): ImportResult {
  let list: unknown[] | null = null;
  for (const fence of answerText.matchAll(FENCE)) {
    const lang = fence[2]!.toLowerCase();
    if (lang !== 'json' && lang !== '') continue;
    list = findJson(fence[3]!, false);
    if (list) break;
  }
  list ??= findJson(answerText, false);
  if (!list) return { source_format: 'json', items: [], errors: [{ message: 'the model answer holds no JSON array of items' }], count: 0 };
  const mode =
    options.mode ??
    (list.some(
      (v) => v && typeof v === 'object' && Object.keys(v).some((k) => BUG_KEYS.has(ALIAS_RANK.get(normaliseKey(k))?.field as Field)),
    )
      ? 'bugs'
      : 'requirements');
  return jsonItems(list, mode);
}
