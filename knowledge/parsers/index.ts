/**
 * The chunking parsers by id. A new parser is added to ALL_PARSERS and nowhere else: the registry, the
 * listing for the API docs and `parser_id` validation all come from that list.
 */
import type { DocumentParser, ParserOptions } from '../document-model';
import { bookParser } from './book';
import { lawsParser } from './laws';
import { manualParser } from './manual';
import { naiveParser } from './naive';
import { oneParser } from './one';
import { paperParser } from './paper';
import { patentParser } from './patent';
import { qaParser } from './qa';
import { tableParser } from './table';

const ALL_PARSERS: readonly DocumentParser[] = [
  naiveParser,
  lawsParser,
  paperParser,
  patentParser,
  qaParser,
  tableParser,
  bookParser,
  manualParser,
  oneParser,
];

export const PARSERS: Readonly<Record<string, DocumentParser>> = Object.freeze(
  Object.fromEntries(ALL_PARSERS.map((parser) => [parser.id, parser])),
);

/**
 * 512 tokens holds a few paragraphs (enough context for an answer) and stays well inside every common
 * embedding model's input; 64 tokens of overlap carries a sentence or two across a cut.
 */
export const DEFAULT_PARSER_OPTIONS: Readonly<ParserOptions> = Object.freeze({ chunkTokens: 512, overlapTokens: 64 });

/** The parser with this id; undefined for an unknown one (own properties only, so `toString` is unknown too). */
export function getParser(id: string): DocumentParser | undefined {
  return Object.prototype.hasOwnProperty.call(PARSERS, id) ? PARSERS[id] : undefined;
}

export function listParsers(): { id: string; description: string }[] {
  return ALL_PARSERS.map(({ id, description }) => ({ id, description }));
}
