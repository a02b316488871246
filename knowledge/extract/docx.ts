import mammoth from 'mammoth';
import { type ExtractedDocument, ExtractionError } from '../document-model';
import { rejectCompoundFile } from './compound-file';
import { htmlToDocument } from './html';
import { assertZipWithinLimits, type ZipLimits } from './zip-limits';

/** Images carry no text; by default mammoth would inline each one as a base64 data URI. */
const WITHOUT_IMAGE_DATA = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

/**
 * mammoth maps Word's heading styles to h1..h6 and keeps lists and tables, so its HTML goes
 * through the HTML extractor. Its warnings (unknown styles, images) do not concern the text.
 */
export async function extractDocx(bytes: Buffer, zipLimits?: ZipLimits): Promise<ExtractedDocument> {
  rejectCompoundFile(bytes, '.docx');
  const entries = await assertZipWithinLimits(bytes, 'Word document', zipLimits);
  if (!entries.some((entry) => entry.name === 'word/document.xml')) {
    throw new ExtractionError('corrupt', 'the file is a ZIP archive but not a Word document (no word/document.xml)');
  }
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes }, { convertImage: WITHOUT_IMAGE_DATA })).value;
  } catch {
    throw new ExtractionError('corrupt', 'the Word document is damaged and cannot be read');
  }
  return htmlToDocument(html);
}
