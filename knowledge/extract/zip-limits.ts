import { createInflateRaw } from 'node:zlib';
import { ExtractionError } from '../document-model';
import { readZipDirectory, type ZipEntry } from './zip-directory';

/** How far a ZIP-based upload (DOCX, XLSX) may unpack; ZIP_MAX_UNCOMPRESSED_BYTES and ZIP_MAX_COMPRESSION_RATIO. */
export interface ZipLimits {
  /** The entries' unpacked sizes added up. */
  maxUncompressedBytes: number;
  /** Unpacked to packed size of any entry that unpacks to more than RATIO_FLOOR_BYTES. */
  maxCompressionRatio: number;
}

/**
 * Office XML compresses about 5-20:1; a bomb is a part of repeated bytes at several hundred to
 * a thousand to one. 100 MiB of XML already takes the libraries about a gigabyte of memory.
 */
export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxUncompressedBytes: 100 * 1024 * 1024, maxCompressionRatio: 100 };

/** Small parts (a style sheet of repeated tags) compress far better than text and cost nothing. */
const RATIO_FLOOR_BYTES = 1024 * 1024;

const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

const tooLarge = (what: string, detail: string) =>
  new ExtractionError('too_large', `the ${what} ${detail}, which is refused as a likely zip bomb`);

/** Whether `data` inflates to at most `limit` bytes; the output is counted, never kept. */
function inflatesWithin(data: Buffer, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    const inflate = createInflateRaw({ chunkSize: 64 * 1024 });
    let size = 0;
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        inflate.destroy();
        resolve(false);
      }
    });
    inflate.on('end', () => resolve(true));
    // A damaged stream is the Office library's to report (as corrupt), not a size problem.
    inflate.on('error', () => resolve(true));
    inflate.end(data);
  });
}

/** An entry's packed bytes, or undefined when its local header is not where the directory says. */
function packedData(bytes: Buffer, entry: ZipEntry): Buffer | undefined {
  const header = entry.localHeaderOffset;
  if (!Number.isFinite(header) || header + 30 > bytes.length || bytes.readUInt32LE(header) !== LOCAL_HEADER) return undefined;
  const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * Refuses, before a library unpacks anything into memory, an archive that is unreadable, that
 * declares more than the limits allow, or that unpacks to more than it declares (sizes are the
 * archive's word: each entry is inflated once with its output counted and dropped).
 */
export async function assertZipWithinLimits(bytes: Buffer, what: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipEntry[]> {
  const entries = readZipDirectory(bytes);
  if (!entries) throw new ExtractionError('corrupt', `the ${what} is damaged: its ZIP directory cannot be read`);
  const mib = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    if (total > limits.maxUncompressedBytes) throw tooLarge(what, `unpacks to more than ${mib(limits.maxUncompressedBytes)}`);
    if (entry.uncompressedSize > RATIO_FLOOR_BYTES && entry.uncompressedSize > entry.compressedSize * limits.maxCompressionRatio) {
      throw tooLarge(
        what,
        `has a part compressed more than ${limits.maxCompressionRatio}:1 (${mib(entry.uncompressedSize)} in ${entry.compressedSize} bytes)`,
      );
    }
  }
  for (const entry of entries) {
    const data = packedData(bytes, entry);
    if (!data) throw new ExtractionError('corrupt', `the ${what} is damaged: a part is not where its ZIP directory says`);
    const honest =
      entry.method === STORED
        ? data.length <= entry.uncompressedSize
        : entry.method !== DEFLATED || (await inflatesWithin(data, entry.uncompressedSize));
    if (!honest) throw tooLarge(what, 'unpacks to more than its ZIP directory declares');
  }
  return entries;
}
