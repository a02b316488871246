import { z } from 'zod';
import { isoDate, resourceId } from './common';

export const fileId = resourceId('fil', 'attachment file id (POST /v1/files)');

/** Text kept per file; a longer extraction is cut here and marked `truncated`. */
export const MAX_FILE_TEXT_BYTES = 2 * 1024 * 1024;
export const TEXT_PREVIEW_CHARS = 200;

/** No text fields: anything besides the file part is refused as an unknown field. */
export const fileUploadFields = z.object({}).strict();

export const fileUploadBody = z
  .object({
    file: z.string().meta({ format: 'binary', description: 'the file (text, Markdown, HTML, PDF, DOCX, CSV, XLSX or JSON)' }),
  })
  .meta({ id: 'UploadFileRequest' });

export const file = z
  .object({
    file_id: fileId,
    name: z.string().meta({ description: 'the uploaded file name' }),
    content_type: z.string(),
    format: z.string().meta({ description: 'detected format (text, markdown, html, pdf, docx, csv, xlsx, json)' }),
    size_bytes: z.number().int(),
    token_count: z.number().int().meta({ description: 'tokens of the kept text (cl100k)' }),
    truncated: z
      .boolean()
      .meta({ description: `the extracted text was longer than ${MAX_FILE_TEXT_BYTES} bytes (UTF-8) and was cut there` }),
    text_preview: z.string().meta({ description: `the first ${TEXT_PREVIEW_CHARS} characters of the extracted text` }),
    created_at: isoDate,
  })
  .meta({ id: 'File' });

export type FileInfo = z.infer<typeof file>;
