import { ExtractedDocument, ExtractionError } from '../document-model';
import { extractCsv } from './csv';
import { describeContent, detectFormat } from './detect-format';
import { extractDocx } from './docx';
import { ExtractorUnavailableError } from './extractor-unavailable';
import { Format, formatNoun, SUPPORTED_FORMATS } from './formats';
import { extractHtml } from './html';
import { extractJson } from './json';
import { extractMarkdown } from './markdown';
import { extractPdf } from './pdf';
import { requireText } from './require-text';
import { extractText } from './text';
import { extractXlsx } from './xlsx';

export { detectFormat, ExtractorUnavailableError, SUPPORTED_FORMATS };
export type { Format };

const EXTRACTORS: Record<Format, (bytes: Buffer) => ExtractedDocument | Promise<ExtractedDocument>> = {
  text: extractText,
  markdown: extractMarkdown,
  html: extractHtml,
  pdf: extractPdf,
  docx: extractDocx,
  csv: extractCsv,
  xlsx: extractXlsx,
  json: extractJson,
};

const SUPPORTED_LIST = 'plain text, Markdown, HTML, PDF, DOCX, CSV, XLSX and JSON';

/**
 * An uploaded file as blocks in reading order. Every failure is an ExtractionError whose message
 * can be shown to the uploader: libraries' own exceptions (with their paths and internals) are
 * replaced, never passed on. ExtractorUnavailableError means our side failed; retry, do not fail the file.
 */
export async function extractDocument(bytes: Buffer, filename: string, contentType?: string): Promise<ExtractedDocument> {
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
    doc = await EXTRACTORS[format](bytes);
  } catch (error) {
    if (error instanceof ExtractionError || error instanceof ExtractorUnavailableError) throw error;
    throw new ExtractionError('corrupt', `the ${formatNoun(format)} cannot be read`);
  }
  return requireText(doc, `the ${formatNoun(format)} contains no text`);
}
