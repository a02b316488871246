import { type Block, type ExtractedDocument, ExtractionError } from '../document-model';

function blockHasText(block: Block): boolean {
  if (block.kind === 'table') return block.rows.some((row) => row.some((cell) => cell.trim() !== ''));
  return block.text.trim() !== '';
}

/** A file that parsed but holds no words is a failure for ingestion, not an empty success. */
export function requireText(doc: ExtractedDocument, emptyMessage: string): ExtractedDocument {
  if (!doc.blocks.some(blockHasText)) throw new ExtractionError('empty', emptyMessage);
  return doc;
}

/** Whitespace from markup or layout (HTML indentation, PDF spacing) carries no meaning in a cell or heading. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
