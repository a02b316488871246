import { Writable } from 'node:stream';
import type { Part } from 'formidable';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { invalid } from '../../common/errors';
import type { AppContext, AppState } from '../context';

/** An uploaded file held in memory: it goes to the database next, never to the API process's disk. */
export interface UploadedFile {
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
  contents?: Buffer;
}

/** The upload's `file` part with its bytes; 10001 when the request has none. */
export function uploadedFile(ctx: AppContext): UploadedFile & { contents: Buffer } {
  const part = (ctx.request.files?.file ?? undefined) as UploadedFile | UploadedFile[] | undefined;
  if (!part || Array.isArray(part) || !part.contents)
    throw invalid('body.file: a file part named "file" is required', { field: 'body.file' });
  return part as UploadedFile & { contents: Buffer };
}

/**
 * multipart/form-data with at most one file of at most `maxFileBytes`, buffered in memory.
 * formidable's limit errors become 10001 naming the limit.
 */
export function uploadBody(maxFileBytes: number): Middleware<AppState> {
  const parse = koaBody({
    multipart: true,
    json: false,
    text: false,
    urlencoded: false,
    formidable: {
      maxFiles: 1,
      maxFileSize: maxFileBytes,
      maxTotalFileSize: maxFileBytes,
      maxFields: 10,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: true,
      minFileSize: 0,
      // formidable takes a part without Content-Type for a text field, even one with a filename:
      // such a part is a file of unknown type, whose format comes from its name and content.
      onPart: (part: Part, handle: (part: Part) => void) => {
        if (typeof part.originalFilename === 'string' && !part.mimetype) part.mimetype = 'application/octet-stream';
        handle(part);
      },
      fileWriteStreamHandler: (file?: unknown) => {
        const target = file as UploadedFile;
        const parts: Buffer[] = [];
        return new Writable({
          write(chunk: Buffer, _encoding, done) {
            parts.push(chunk);
            done();
          },
          final(done) {
            target.contents = Buffer.concat(parts);
            done();
          },
        });
      },
    },
  }) as unknown as Middleware<AppState>;

  return async (ctx, next) => {
    try {
      await parse(ctx, () => Promise.resolve());
    } catch (err) {
      const message = String((err as Error).message ?? err);
      if (/maxFileSize|maxTotalFileSize|exceeded/i.test(message))
        throw invalid(`file exceeds the upload limit of ${maxFileBytes} bytes`, { field: 'body.file', max_bytes: maxFileBytes });
      if (/maxFiles/i.test(message)) throw invalid('body: send exactly one file part', { field: 'body.file' });
      throw invalid('body: malformed multipart/form-data');
    }
    // formidable gives every field as an array; the schema expects one value per field.
    const fields = (ctx.request.body ?? {}) as Record<string, unknown>;
    ctx.request.body = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) && v.length === 1 ? v[0] : v]));
    await next();
  };
}
