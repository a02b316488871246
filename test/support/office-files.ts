import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import JSZip from 'jszip';

const HANDBOOK = join(__dirname, '..', 'fixtures', 'documents', 'handbook.docx');
const DIRECTORY_ENTRY = Buffer.from('PK\x01\x02', 'latin1');
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A real Word document (the handbook fixture's package) whose body is one paragraph of `text`. */
export async function docxWithText(text: string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(readFileSync(HANDBOOK));
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/** A zip bomb shaped as a Word document: one run of a repeated letter that unpacks to `bytes` (about 1000:1). */
export const docxBomb = (bytes: number) => docxWithText('a'.repeat(bytes));

/**
 * `zip` with the central directory's sizes of `entry` rewritten to `declared` bytes, as a bomb that
 * lies about its size to slip past a check of the declared sizes.
 */
export function declaringSize(zip: Buffer, entry: string, declared: number): Buffer {
  const copy = Buffer.from(zip);
  const name = Buffer.from(entry);
  for (let at = copy.indexOf(DIRECTORY_ENTRY); at >= 0; at = copy.indexOf(DIRECTORY_ENTRY, at + 4)) {
    const nameLength = copy.readUInt16LE(at + 28);
    if (copy.subarray(at + 46, at + 46 + nameLength).equals(name)) {
      copy.writeUInt32LE(declared, at + 24);
      return copy;
    }
  }
  throw new Error(`${entry} is not in the archive`);
}
