export interface ZipEntry {
  name: string;
  /** As declared by the archive; a hostile archive can lie, see zip-limits.ts. */
  uncompressedSize: number;
  compressedSize: number;
  /** 0 stored, 8 deflated; anything else is not read by the Office libraries. */
  method: number;
  localHeaderOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const ZIP64_EXTRA_FIELD = 0x0001;
const NO_32BIT_VALUE = 0xffffffff;

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

/**
 * The 64-bit values of a ZIP64 extra field: present, in this order, only for the fields whose
 * 32-bit value is maxed out; a missing one reads as infinite, which the limits refuse.
 */
function zip64Values(bytes: Buffer, extraStart: number, extraEnd: number, wanted: boolean[]): number[] {
  for (let field = extraStart; field + 4 <= extraEnd;) {
    const id = bytes.readUInt16LE(field);
    const size = bytes.readUInt16LE(field + 2);
    if (id === ZIP64_EXTRA_FIELD) {
      let at = field + 4;
      return wanted.map((want) => {
        if (!want) return 0;
        if (at + 8 > Math.min(field + 4 + size, extraEnd)) return Number.POSITIVE_INFINITY;
        const value = Number(bytes.readBigUInt64LE(at));
        at += 8;
        return value;
      });
    }
    field += 4 + size;
  }
  return wanted.map(() => Number.POSITIVE_INFINITY);
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
    const sizes = [bytes.readUInt32LE(position + 24), bytes.readUInt32LE(position + 20), bytes.readUInt32LE(position + 42)];
    const wide = zip64Values(
      bytes,
      extraStart,
      extraStart + extraLength,
      sizes.map((value) => value === NO_32BIT_VALUE),
    );
    const [uncompressedSize, compressedSize, localHeaderOffset] = sizes.map((value, i) =>
      value === NO_32BIT_VALUE ? wide[i]! : value,
    ) as [number, number, number];
    entries.push({
      name: bytes.toString('utf8', nameStart, Math.min(extraStart, bytes.length)),
      uncompressedSize,
      compressedSize,
      method: bytes.readUInt16LE(position + 10),
      localHeaderOffset,
    });
    position = extraStart + extraLength + commentLength;
  }
  const declaredCount = bytes.readUInt16LE(endRecord + 10);
  if (entries.length === 0 && declaredCount !== 0) return undefined;
  return entries;
}
