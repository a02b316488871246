import { type ExtractedDocument, ExtractionError } from '../document-model';
import { layoutBlocks, type TextRun } from './pdf-layout';
import { type RawTextItem, readPdf } from './pdf-worker';

function toRun(item: RawTextItem): TextRun {
  const [, , c = 0, d = 0, x = 0, y = 0] = item.transform;
  // The font size is the vertical scale of the text matrix (rotation-safe).
  return { text: item.str, x, y, width: item.width, size: Math.hypot(c, d), endsLine: item.hasEOL };
}

/** Text per page with page numbers kept on every block; headings come from font sizes (see pdf-layout). */
export async function extractPdf(bytes: Buffer): Promise<ExtractedDocument> {
  const pdf = await readPdf(bytes);
  const blocks = layoutBlocks(pdf.pages.map((items, index) => ({ page: index + 1, runs: items.map(toRun) })));
  if (blocks.length === 0) {
    throw new ExtractionError('empty', 'the PDF has no text layer (it is probably scanned); run OCR on it and upload again');
  }
  const firstHeading = blocks.find((block) => block.kind === 'heading' && block.level === 1 && block.page === 1);
  const title = pdf.title?.trim() || (firstHeading?.kind === 'heading' ? firstHeading.text : undefined);
  return title ? { title, blocks, pageCount: pdf.pageCount } : { blocks, pageCount: pdf.pageCount };
}
