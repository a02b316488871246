import { storableText } from '../../common/storable-text';
import { type Block, type ExtractedDocument, ExtractionError } from '../document-model';
import { extractCsv } from './csv';
import { describeContent, detectFormat } from './detect-format';
import { extractDocx } from './docx';
import { ExtractorUnavailableError } from './extractor-unavailable';
import { type Format, formatNoun, SUPPORTED_FORMATS } from './formats';
import { extractHtml } from './html';
import { extractJson } from './json';
import { extractMarkdown } from './markdown';
import { extractPdf } from './pdf';
import { requireText } from './require-text';
import { extractText } from './text';
import { extractXlsx } from './xlsx';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-limits';

export { detectFormat, ExtractorUnavailableError, SUPPORTED_FORMATS };
export type { ZipLimits };

export interface ExtractOptions {
  zipLimits?: ZipLimits;
}

const EXTRACTORS: Record<Format, (bytes: Buffer, zipLimits: ZipLimits) => ExtractedDocument | Promise<ExtractedDocument>> = {
  text: extractText,
  markdown: extractMarkdown,
  html: extractHtml,
  pdf: extractPdf,
  docx: extractDocx,
  csv: extractCsv,
  xlsx: extractXlsx,
  json: extractJson,
};

/**
 * Text the stores can hold (no NUL, no lone surrogate): a text file with stray NUL bytes, or a PDF
 * whose text layer has them, is read rather than failing where it is stored or indexed.
 */
function storableBlock(block: Block): Block {
  if (block.kind !== 'table') return { ...block, text: storableText(block.text) };
  const rows = block.rows.map((row) => row.map(storableText));
  return block.name === undefined ? { ...block, rows } : { ...block, rows, name: storableText(block.name) };
}

function storableDocument(doc: ExtractedDocument): ExtractedDocument {
  const blocks = doc.blocks.map(storableBlock);
  return doc.title === undefined ? { ...doc, blocks } : { ...doc, blocks, title: storableText(doc.title) };
}

const SUPPORTED_LIST = 'plain text, Markdown, HTML, PDF, DOCX, CSV, XLSX and JSON';

/**
 * An uploaded file as blocks in reading order. Every failure is an ExtractionError whose message
 * can be shown to the uploader: libraries' own exceptions (with their paths and internals) are
 * replaced, never passed on. ExtractorUnavailableError means our side failed; retry, do not fail the file.
 */
export async function extractDocument(
  bytes: Buffer,
  filename: string,
  contentType?: string,
  options: ExtractOptions = {},
): Promise<ExtractedDocument> {
  if (bytes.length === 0) throw new ExtractionError('empty', 'the file is empty');
  const format = detectFormat(bytes, filename, contentType);
  if (!format) {
    throw new ExtractionError(
      'unsupported',
      `unsupported file format: ${describeContent(bytes, filename, contentType)}; supported are ${SUPPORTED_LIST}`,
    );
  }
  let doc: ExtractedDocument;
  try {
    doc = await EXTRACTORS[format](bytes, options.zipLimits ?? DEFAULT_ZIP_LIMITS);
  } catch (error) {
    if (error instanceof ExtractionError || error instanceof ExtractorUnavailableError) throw error;
    throw new ExtractionError('corrupt', `the ${formatNoun(format)} cannot be read`);
  }
  return requireText(storableDocument(doc), `the ${formatNoun(format)} contains no text`);
}
