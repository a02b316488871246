import { analyse } from 'chardet';
import iconv from 'iconv-lite';
import { ExtractionError } from '../document-model';

const UTF16_LE_BOM = [0xff, 0xfe];
const UTF16_BE_BOM = [0xfe, 0xff];

/** Bytes the charset detector looks at: enough to be sure, bounded on a 50 MB upload. */
const DETECTION_SAMPLE_BYTES = 64 * 1024;
/** Below this confidence (0-100) the detector is guessing; Windows-1252 is then the likeliest legacy text. */
const MIN_CONFIDENCE = 10;
/** Text has next to no control characters; binary data decoded as a code page has about one in ten. */
const MAX_CONTROL_SHARE = 0.02;
// eslint-disable-next-line no-control-regex -- counting control characters is the point: they mark binary data
const CONTROL_CHARACTERS = /[\u0001-\u0008\u000E-\u001A\u001C-\u001F\uFFFD]/g;

function startsWith(bytes: Buffer, prefix: number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

/**
 * WHATWG decoders read "ISO-8859-1" and "US-ASCII" labels as Windows-1252, as browsers do: files
 * labelled so use its printable 0x80-0x9F (curly quotes, the euro sign) far more often than C1 controls.
 */
function legacyEncoding(sample: Buffer): string {
  const best = analyse(sample)[0];
  if (!best || best.confidence < MIN_CONFIDENCE || /^(ISO-8859-1|ASCII)$/i.test(best.name)) return 'windows-1252';
  return iconv.encodingExists(best.name) ? best.name : 'windows-1252';
}

/** Bytes without their NULs: they carry no text in UTF-8 or any legacy code page, and the stores cannot hold them. */
function withoutNul(bytes: Buffer): Buffer {
  return bytes.includes(0) ? Buffer.from(bytes.filter((byte) => byte !== 0)) : bytes;
}

function isText(text: string): boolean {
  const sample = text.slice(0, DETECTION_SAMPLE_BYTES);
  return (sample.match(CONTROL_CHARACTERS)?.length ?? 0) <= sample.length * MAX_CONTROL_SHARE;
}

/** The bytes as text, or undefined when they are not text; `partial`: a sample that may end mid-character. */
function decode(bytes: Buffer, partial: boolean): string | undefined {
  if (startsWith(bytes, UTF16_LE_BOM) || startsWith(bytes, UTF16_BE_BOM)) {
    const encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
    try {
      return new TextDecoder(encoding, { fatal: true }).decode(bytes, { stream: partial });
    } catch {
      throw new ExtractionError('unsupported', 'the file starts like UTF-16 text but is not valid UTF-16');
    }
  }
  const clean = withoutNul(bytes);
  let text: string;
  try {
    // TextDecoder drops a leading UTF-8 BOM by itself.
    text = new TextDecoder('utf-8', { fatal: true }).decode(clean, { stream: partial });
  } catch {
    text = iconv.decode(clean, legacyEncoding(clean.subarray(0, DETECTION_SAMPLE_BYTES)));
  }
  return isText(text) ? text : undefined;
}

/**
 * Text-based formats arrive as bytes. UTF-8 (with or without BOM) is the norm; UTF-16 is accepted
 * with its BOM (without one it cannot be told apart from binary data); anything else is a legacy
 * code page (GBK, Shift-JIS, Windows-1252, ...) named by a charset detector (chardet) and decoded
 * with iconv-lite. Bytes that decode to control characters are refused as binary data.
 */
export function decodeText(bytes: Buffer): string {
  const text = decode(bytes, false);
  if (text === undefined) throw new ExtractionError('unsupported', 'the file contains binary data, not text');
  return text;
}

/** A cheap look at the start of a file, for format detection when nothing else names the format. */
export function looksLikeText(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.length === 0) return false;
  try {
    return decode(head, true) !== undefined;
  } catch {
    return false;
  }
}

/** CRLF and lone CR (old Mac files) become LF so that line-based parsing sees one convention. */
export function normaliseLineEnds(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
