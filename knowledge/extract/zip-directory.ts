import { ExtractionError } from '../document-model';

export interface ZipEntry {
  name: string;
  /** As declared by the archive; a hostile archive can lie, see `assertZipWithinLimits`. */
  uncompressedSize: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const ZIP64_EXTRA_FIELD = 0x0001;
const NO_32BIT_VALUE = 0xffffffff;

/**
 * Office files are more than 256 MiB of XML only in pathological cases; past that the libraries
 * would exhaust the worker's memory, so such a file is refused before anything is inflated.
 */
export const MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024;

function findEndOfDirectory(bytes: Buffer): number | undefined {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end of the file.
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let offset = bytes.length - 22; offset >= lowest; offset--) {
    if (bytes.readUInt32LE(offset) === END_OF_DIRECTORY) return offset;
  }
  return undefined;
}

function directoryOffset(bytes: Buffer, endRecord: number): number | undefined {
  const offset = bytes.readUInt32LE(endRecord + 16);
  if (offset !== NO_32BIT_VALUE) return offset;
  const locator = endRecord - 20;
  if (locator < 0 || bytes.readUInt32LE(locator) !== ZIP64_END_LOCATOR) return undefined;
  const zip64End = Number(bytes.readBigUInt64LE(locator + 8));
  if (zip64End + 56 > bytes.length || bytes.readUInt32LE(zip64End) !== ZIP64_END_OF_DIRECTORY) return undefined;
  return Number(bytes.readBigUInt64LE(zip64End + 48));
}

function zip64UncompressedSize(bytes: Buffer, extraStart: number, extraEnd: number): number {
  for (let field = extraStart; field + 4 <= extraEnd; ) {
    const id = bytes.readUInt16LE(field);
    const size = bytes.readUInt16LE(field + 2);
    // The uncompressed size is the first value of the ZIP64 field when the 32-bit one is maxed out.
    if (id === ZIP64_EXTRA_FIELD && size >= 8 && field + 12 <= extraEnd) return Number(bytes.readBigUInt64LE(field + 4));
    field += 4 + size;
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * The archive's table of contents, read from its central directory without inflating anything;
 * undefined when the file has no readable directory (truncated or not a ZIP at all).
 */
export function readZipDirectory(bytes: Buffer): ZipEntry[] | undefined {
  if (bytes.length < 22) return undefined;
  const endRecord = findEndOfDirectory(bytes);
  if (endRecord === undefined) return undefined;
  const directoryStart = directoryOffset(bytes, endRecord);
  if (directoryStart === undefined) return undefined;
  let position = directoryStart;

  const entries: ZipEntry[] = [];
  while (position + 46 <= bytes.length && bytes.readUInt32LE(position) === DIRECTORY_ENTRY) {
    const nameLength = bytes.readUInt16LE(position + 28);
    const extraLength = bytes.readUInt16LE(position + 30);
    const commentLength = bytes.readUInt16LE(position + 32);
    const nameStart = position + 46;
    const extraStart = nameStart + nameLength;
    const declared = bytes.readUInt32LE(position + 24);
    entries.push({
      name: bytes.toString('utf8', nameStart, Math.min(extraStart, bytes.length)),
      uncompressedSize: declared === NO_32BIT_VALUE ? zip64UncompressedSize(bytes, extraStart, extraStart + extraLength) : declared,
    });
    position = extraStart + extraLength + commentLength;
  }
  const declaredCount = bytes.readUInt16LE(endRecord + 10);
  if (entries.length === 0 && declaredCount !== 0) return undefined;
  return entries;
}

/**
 * Refuses archives that are unreadable or that declare an absurd unpacked size (a zip bomb).
 * Declared sizes can lie; JSZip (used by mammoth and exceljs) only notices a mismatch after
 * inflating, so a lying archive is bounded by the worker's memory limit, not by this check.
 */
export function assertZipWithinLimits(bytes: Buffer, what: string): ZipEntry[] {
  const entries = readZipDirectory(bytes);
  if (!entries) throw new ExtractionError('corrupt', `the ${what} is damaged: its ZIP directory cannot be read`);
  const total = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (total > MAX_UNCOMPRESSED_BYTES) {
    throw new ExtractionError(
      'unsupported',
      `the ${what} unpacks to more than ${MAX_UNCOMPRESSED_BYTES / (1024 * 1024)} MiB, which is refused as a likely zip bomb`,
    );
  }
  return entries;
}
