import { ExtractionError } from '../document-model';

/**
 * OLE Compound File Binary (CFB) containers hold two things we meet as uploads: Office files
 * that are password-protected (Word and Excel wrap the encrypted OOXML package in a CFB with an
 * `EncryptedPackage` stream) and the legacy binary formats (.doc, .xls, .ppt).
 */
const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export type CompoundFileKind = 'encrypted-office' | 'legacy-word' | 'legacy-excel' | 'legacy-powerpoint' | 'unknown';

export function isCompoundFile(bytes: Buffer): boolean {
  return bytes.subarray(0, CFB_SIGNATURE.length).equals(CFB_SIGNATURE);
}

/** Stream names are stored in UTF-16LE in the container's directory, so a byte search finds them. */
function hasStream(bytes: Buffer, name: string): boolean {
  return bytes.includes(Buffer.from(name, 'utf16le'));
}

export function compoundFileKind(bytes: Buffer): CompoundFileKind {
  if (hasStream(bytes, 'EncryptedPackage')) return 'encrypted-office';
  if (hasStream(bytes, 'WordDocument')) return 'legacy-word';
  if (hasStream(bytes, 'Workbook') || hasStream(bytes, 'Book')) return 'legacy-excel';
  if (hasStream(bytes, 'PowerPoint Document')) return 'legacy-powerpoint';
  return 'unknown';
}

const KIND_DESCRIPTIONS: Record<CompoundFileKind, string> = {
  'encrypted-office': 'a password-protected Office document',
  'legacy-word': 'a legacy Word 97-2003 document (.doc)',
  'legacy-excel': 'a legacy Excel 97-2003 workbook (.xls)',
  'legacy-powerpoint': 'a legacy PowerPoint 97-2003 presentation (.ppt)',
  unknown: 'an OLE compound file of unknown kind',
};

export function describeCompoundFile(bytes: Buffer): string {
  return KIND_DESCRIPTIONS[compoundFileKind(bytes)];
}

/**
 * An Office extractor receiving a CFB instead of a ZIP: encrypted files are named as such so that
 * the user knows to remove the password; legacy formats are refused with what to save them as.
 */
export function rejectCompoundFile(bytes: Buffer, modernExtension: '.docx' | '.xlsx'): void {
  if (!isCompoundFile(bytes)) return;
  const kind = compoundFileKind(bytes);
  if (kind === 'encrypted-office') {
    throw new ExtractionError('encrypted', 'the document is password-protected; upload it without the password');
  }
  throw new ExtractionError('unsupported', `the file is ${KIND_DESCRIPTIONS[kind]}; save it as ${modernExtension} and upload again`);
}
