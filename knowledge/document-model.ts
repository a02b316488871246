/**
 * The shapes that connect the stages of ingestion: a format extractor turns a file into blocks,
 * a parser turns blocks into chunks, the embedder and the index take the chunks.
 */

/** One structural unit of an extracted document, in reading order. */
export type Block =
  | { kind: 'heading'; level: number; text: string; page?: number }
  | { kind: 'paragraph'; text: string; page?: number }
  | { kind: 'list-item'; text: string; page?: number }
  | { kind: 'code'; text: string; page?: number }
  /** `rows[0]` is the header row when the source marks one (CSV, XLSX, HTML `th`). */
  | { kind: 'table'; rows: string[][]; name?: string; page?: number };

export interface ExtractedDocument {
  /** The document's own title when the format carries one (PDF info, HTML `title`, first H1). */
  title?: string;
  blocks: Block[];
  /** Pages for paged formats (PDF), sheets for workbooks. */
  pageCount?: number;
}

/** Why a file could not be read; becomes the document's failure reason. */
export class ExtractionError extends Error {
  constructor(
    readonly reason: 'unsupported' | 'encrypted' | 'corrupt' | 'empty' | 'too_large',
    message: string,
  ) {
    super(message);
    this.name = 'ExtractionError';
  }
}

/** A chunk as a parser emits it, before it is embedded and indexed. */
export interface ChunkDraft {
  content: string;
  /** Headings (or structural labels such as `Claim 3`) from the document root to this chunk. */
  sectionPath: string[];
  /** Token count of `content` (cl100k_base). */
  tokens: number;
  /** Parser-specific role: `abstract`, `claim`, `reference`, `qa`, `row`, ... */
  role?: string;
  /** Parser-specific facts worth keeping (a claim's dependencies, a QA pair's question, a page). */
  metadata?: Record<string, string | number | boolean | string[] | number[]>;
}

export interface ParserOptions {
  /** Largest chunk in tokens; parsers that keep units whole split only units above it. */
  chunkTokens: number;
  /** Tokens repeated from the end of one chunk at the start of the next (naive-style splitting). */
  overlapTokens: number;
}

export interface DocumentParser {
  id: string;
  description: string;
  parse(doc: ExtractedDocument, options: ParserOptions): ChunkDraft[];
}
