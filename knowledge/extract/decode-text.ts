import { ExtractionError } from '../document-model';

const UTF16_LE_BOM = [0xff, 0xfe];
const UTF16_BE_BOM = [0xfe, 0xff];

function startsWith(bytes: Buffer, prefix: number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

export interface DecodeOptions {
  /**
   * Accept bytes that are not UTF-8 as Windows-1252: Excel on Windows saves "CSV" in that code
   * page, and for a table of names and numbers a wrong guess costs at most a few accents.
   */
  windows1252Fallback?: boolean;
}

/**
 * Text-based formats arrive as bytes. UTF-8 (with or without BOM) is the norm; UTF-16 is accepted
 * only with its BOM, since without one it cannot be told apart from binary data. Anything else is
 * refused rather than decoded into mojibake that would then be indexed.
 */
export function decodeText(bytes: Buffer, options: DecodeOptions = {}): string {
  if (startsWith(bytes, UTF16_LE_BOM) || startsWith(bytes, UTF16_BE_BOM)) {
    const encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
    try {
      return new TextDecoder(encoding, { fatal: true }).decode(bytes);
    } catch {
      throw new ExtractionError('unsupported', 'the file starts like UTF-16 text but is not valid UTF-16');
    }
  }
  if (bytes.includes(0)) {
    throw new ExtractionError('unsupported', 'the file contains binary data, not text');
  }
  try {
    // TextDecoder drops a leading UTF-8 BOM by itself.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    if (options.windows1252Fallback) return new TextDecoder('windows-1252').decode(bytes);
    throw new ExtractionError('unsupported', 'the file is not valid UTF-8 text');
  }
}

/** A cheap look at the start of a file, for format detection when nothing else names the format. */
export function looksLikeText(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8192);
  if (startsWith(head, UTF16_LE_BOM) || startsWith(head, UTF16_BE_BOM)) return true;
  if (head.length === 0 || head.includes(0)) return false;
  try {
    // `stream: true` tolerates a multi-byte character cut off at the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** CRLF and lone CR (old Mac files) become LF so that line-based parsing sees one convention. */
export function normaliseLineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
