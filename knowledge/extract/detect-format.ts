import { extname } from 'node:path';
import { compoundFileKind, describeCompoundFile, isCompoundFile } from './compound-file';
import { looksLikeText } from './decode-text';
import { type Format, SUPPORTED_FORMATS } from './formats';
import { readZipDirectory } from './zip-directory';

const ZIP_SIGNATURES = ['PK\x03\x04', 'PK\x05\x06'].map((signature) => Buffer.from(signature, 'latin1'));
const PDF_SIGNATURE = Buffer.from('%PDF-', 'latin1');
/** pdf.js, like Acrobat, accepts junk before the header within the first kilobyte. */
const PDF_HEADER_WINDOW = 1024;

/** Formats we recognise by their first bytes only to refuse them with a precise message. */
const UNSUPPORTED_SIGNATURES: { bytes: Buffer; description: string }[] = [
  { bytes: Buffer.from('{\\rtf', 'latin1'), description: 'an RTF document' },
  { bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]), description: 'a PNG image' },
  { bytes: Buffer.from([0xff, 0xd8, 0xff]), description: 'a JPEG image' },
  { bytes: Buffer.from('GIF8', 'latin1'), description: 'a GIF image' },
  { bytes: Buffer.from('II*\0', 'latin1'), description: 'a TIFF image' },
  { bytes: Buffer.from('MM\0*', 'latin1'), description: 'a TIFF image' },
  { bytes: Buffer.from([0x1f, 0x8b]), description: 'a gzip archive' },
  { bytes: Buffer.from('7z\xbc\xaf\x27\x1c', 'latin1'), description: 'a 7-Zip archive' },
  { bytes: Buffer.from('Rar!', 'latin1'), description: 'a RAR archive' },
];

function isZip(bytes: Buffer): boolean {
  return ZIP_SIGNATURES.some((signature) => bytes.subarray(0, signature.length).equals(signature));
}

function isPdf(bytes: Buffer): boolean {
  return bytes.subarray(0, PDF_HEADER_WINDOW).includes(PDF_SIGNATURE);
}

/**
 * Entry names of a ZIP; for a truncated archive without its directory, the names that appear in
 * the local headers that survived (they are stored uncompressed), found by a byte search.
 */
function zipEntryNames(bytes: Buffer): { names: string[]; complete: boolean } {
  const entries = readZipDirectory(bytes);
  if (entries) return { names: entries.map((entry) => entry.name), complete: true };
  const known = ['word/document.xml', 'xl/workbook.xml'];
  return { names: known.filter((name) => bytes.includes(Buffer.from(name, 'latin1'))), complete: false };
}

function officeZipFormat(names: string[]): Format | undefined {
  if (names.includes('word/document.xml')) return 'docx';
  if (names.includes('xl/workbook.xml')) return 'xlsx';
  return undefined;
}

function formatFromExtension(filename: string): Format | undefined {
  const extension = extname(filename).toLowerCase();
  if (!extension) return undefined;
  return SUPPORTED_FORMATS.find((entry) => (entry.extensions as readonly string[]).includes(extension))?.format;
}

function formatFromContentType(contentType: string | undefined): Format | undefined {
  const mimeType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!mimeType) return undefined;
  return SUPPORTED_FORMATS.find((entry) => (entry.mimeTypes as readonly string[]).includes(mimeType))?.format;
}

/** Last resort for uploads without a useful name or type: text, and HTML or JSON if it plainly is. */
function formatFromText(bytes: Buffer): Format | undefined {
  if (!looksLikeText(bytes)) return undefined;
  const head = bytes
    .subarray(0, 1024)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^<(?:!doctype\s+html|html|head|body)\b/i.test(head)) return 'html';
  if (/^[[{]/.test(head)) {
    try {
      JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
      return 'json';
    } catch {
      return 'text';
    }
  }
  return 'text';
}

/**
 * What the file is: magic bytes first (they cannot be mislabelled by a browser or a user), then the
 * file name's extension, then the declared content type, then a look at the text itself.
 * undefined means the file is not one of SUPPORTED_FORMATS (describeContent says what it is).
 */
export function detectFormat(bytes: Buffer, filename: string, contentType?: string): Format | undefined {
  if (isPdf(bytes)) return 'pdf';
  if (isZip(bytes)) {
    const { names, complete } = zipEntryNames(bytes);
    const format = officeZipFormat(names);
    if (format || complete) return format;
    // A damaged archive: trust the name so that the Office extractor reports it as corrupt.
    const named = formatFromExtension(filename) ?? formatFromContentType(contentType);
    return named === 'docx' || named === 'xlsx' ? named : undefined;
  }
  if (isCompoundFile(bytes)) {
    if (compoundFileKind(bytes) !== 'encrypted-office') return undefined;
    // The encrypted package hides whether it is a document or a workbook; both extractors refuse it alike.
    const named = formatFromExtension(filename) ?? formatFromContentType(contentType);
    return named === 'xlsx' ? 'xlsx' : 'docx';
  }
  if (UNSUPPORTED_SIGNATURES.some((signature) => bytes.subarray(0, signature.bytes.length).equals(signature.bytes))) {
    return undefined;
  }
  return formatFromExtension(filename) ?? formatFromContentType(contentType) ?? formatFromText(bytes);
}

function describeZip(bytes: Buffer): string {
  const { names } = zipEntryNames(bytes);
  if (names.includes('ppt/presentation.xml')) return 'a PowerPoint presentation (.pptx)';
  if (names.includes('mimetype') && bytes.includes(Buffer.from('application/vnd.oasis.opendocument', 'latin1'))) {
    return 'an OpenDocument file (.odt/.ods/.odp)';
  }
  if (names.includes('META-INF/container.xml')) return 'an EPUB book';
  return 'a ZIP archive';
}

/** A short, user-facing account of what an unsupported file is. */
export function describeContent(bytes: Buffer, filename: string, contentType?: string): string {
  if (isZip(bytes)) return describeZip(bytes);
  if (isCompoundFile(bytes)) return describeCompoundFile(bytes);
  const signature = UNSUPPORTED_SIGNATURES.find((entry) => bytes.subarray(0, entry.bytes.length).equals(entry.bytes));
  if (signature) return signature.description;
  const extension = extname(filename).toLowerCase();
  const mimeType = contentType?.split(';')[0]?.trim().toLowerCase();
  const label = extension
    ? `a "${extension}" file`
    : mimeType && mimeType !== 'application/octet-stream'
      ? `a "${mimeType}" file`
      : 'a file';
  return looksLikeText(bytes) ? `${label} of unknown text format` : `${label} of unrecognised binary data`;
}
