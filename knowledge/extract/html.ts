import { type ExtractedDocument } from '../document-model';
import { decodeText } from './decode-text';
import { htmlToMarkdown } from './html-to-markdown';
import { markdownToDocument } from './markdown';

/** Title from `<title>`, otherwise the first H1 (markdownToDocument's fallback). */
export function htmlToDocument(html: string): ExtractedDocument {
  const { markdown, title } = htmlToMarkdown(html);
  return markdownToDocument(markdown, title);
}

export function extractHtml(bytes: Buffer): ExtractedDocument {
  return htmlToDocument(decodeText(bytes));
}
