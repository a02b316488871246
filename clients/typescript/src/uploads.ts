/**
 * Files for the multipart operations (`documents.upload`, `files.upload`): a Blob or File, bytes, a
 * ReadableStream, or (Node, Deno, Bun) a path. The body is assembled once as a Blob (a file given by
 * path stays on disk: Node's `fs.openAsBlob`), so every retry sends the same bytes and its length is
 * known; with `onProgress` it is streamed and counted as it goes out (in a browser, through
 * XMLHttpRequest, which reports upload progress where fetch cannot).
 */
import { importNodeBuiltin, isRecord, uuid } from './internal';

/** What a multipart operation takes as its file. */
export type Uploadable = Blob | File | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | string;

/** Progress of an upload: bytes sent so far and in all. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

const TYPES: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  csv: 'text/csv',
  json: 'application/json',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The media type of a file name's extension (the formats the service reads), else application/octet-stream. */
export function typeOfName(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return (ext && TYPES[ext]) ?? 'application/octet-stream';
}

/**
 * A File with a name (and type) from bytes, a Blob or a stream, so an upload from memory carries a
 * file name: `client.documents.upload({ kb_id, file: await toFile(bytes, 'notes.txt') })`.
 */
export async function toFile(
  content: Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | string,
  name: string,
  options: { type?: string } = {},
): Promise<File> {
  const type = options.type ?? (content instanceof Blob && content.type ? content.type : typeOfName(name));
  const blob = await toBlob(content);
  return new File([blob], name, { type });
}

async function toBlob(content: Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | string): Promise<Blob> {
  if (content instanceof Blob) return content;
  if (typeof content === 'string') return new Blob([content]);
  if (content instanceof Uint8Array) return new Blob([content as Uint8Array<ArrayBuffer>]);
  if (content instanceof ArrayBuffer) return new Blob([content]);
  return new Response(content).blob();
}

interface NodeFs {
  openAsBlob?: (path: string) => Promise<Blob>;
  promises: { readFile(path: string): Promise<Uint8Array>; stat(path: string): Promise<{ isDirectory(): boolean }> };
}

/**
 * A file to upload, by path, as a Blob. A path that is missing (or a directory, or unreadable) is an
 * error naming it, with Node's code (`ENOENT`, `EISDIR`, `EACCES`) and `path`: `fs.openAsBlob`'s own
 * error says only "Unable to open file as blob".
 */
async function openFile(fs: NodeFs, path: string): Promise<Blob> {
  const failed = (message: string, code: string | undefined, cause?: unknown) =>
    Object.assign(new Error(message, cause === undefined ? {} : { cause }), { code, path });
  let stat: { isDirectory(): boolean };
  try {
    stat = await fs.promises.stat(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') throw failed(`No such file to upload: '${path}' (ENOENT)`, code, err);
    throw failed(`Cannot upload '${path}': ${err instanceof Error ? err.message : String(err)}`, code, err);
  }
  if (stat.isDirectory()) throw failed(`Cannot upload '${path}': it is a directory (EISDIR)`, 'EISDIR');
  try {
    const inMemory = async () => new Blob([(await fs.promises.readFile(path)) as Uint8Array<ArrayBuffer>]);
    if (!fs.openAsBlob) return await inMemory();
    const onDisk = await fs.openAsBlob(path);
    // Bun drops a file-backed Blob from a Blob of several parts (the multipart body): such a file is read into memory.
    return new Blob(['-', onDisk]).size === onDisk.size + 1 ? onDisk : await inMemory();
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw failed(`Cannot upload '${path}': ${err instanceof Error ? err.message : String(err)}`, code, err);
  }
}

/** The file part of an upload: a Blob and its name. */
async function filePart(file: Uploadable): Promise<{ blob: Blob; name: string; type: string }> {
  if (typeof file === 'string') {
    const fs = await importNodeBuiltin<NodeFs>('fs');
    const name = file.split(/[\\/]/).pop() || 'file';
    const blob = await openFile(fs, file);
    return { blob, name, type: typeOfName(name) };
  }
  if (typeof File !== 'undefined' && file instanceof File)
    return { blob: file, name: file.name || 'file', type: file.type || typeOfName(file.name) };
  const blob = await toBlob(file);
  return { blob, name: 'file', type: blob.type || 'application/octet-stream' };
}

/** `"` and line breaks in a form field's name or file name, as browsers encode them. */
const quoted = (text: string) => text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** A multipart/form-data body, assembled once so that every attempt sends the same bytes. */
export interface MultipartBody {
  blob: Blob;
  contentType: string;
}

/** Encodes `params` (text fields, and binary parts for the names in `fileFields`) as multipart/form-data. */
export async function multipartBody(params: object, fileFields: readonly string[]): Promise<MultipartBody> {
  const boundary = `----combo-${uuid()}`;
  const parts: BlobPart[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (fileFields.includes(name)) {
      const file = await filePart(value as Uploadable);
      parts.push(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"; filename="${quoted(file.name)}"\r\n` +
          `Content-Type: ${file.type}\r\n\r\n`,
        file.blob,
        '\r\n',
      );
    } else {
      const text =
        typeof value === 'string' ? value : isRecord(value) || Array.isArray(value) ? JSON.stringify(value) : String(value as string);
      parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${text}\r\n`);
    }
  }
  parts.push(`--${boundary}--\r\n`);
  return { blob: new Blob(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The body streamed, reporting progress as each piece is read out (Node, Deno, Bun). */
export function countingStream(blob: Blob, onProgress: (progress: UploadProgress) => void): ReadableStream<Uint8Array> {
  const total = blob.size;
  let loaded = 0;
  return blob.stream().pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        controller.enqueue(chunk);
        onProgress({ loaded, total });
      },
    }),
  );
}

/** One attempt through XMLHttpRequest (browsers), for its upload progress events; answers a fetch Response. */
export function sendWithXhr(
  url: string,
  init: { method: string; headers: Record<string, string>; body: Blob; signal: AbortSignal },
  onProgress: (progress: UploadProgress) => void,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(init.method, url);
    for (const [name, value] of Object.entries(init.headers)) xhr.setRequestHeader(name, value);
    xhr.responseType = 'text';
    xhr.upload.onprogress = (event) => onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : init.body.size });
    const onAbort = () => xhr.abort();
    init.signal.addEventListener('abort', onAbort, { once: true });
    const fail = (message: string) => () => {
      init.signal.removeEventListener('abort', onAbort);
      reject(init.signal.aborted ? (init.signal.reason as Error) : new TypeError(message));
    };
    xhr.onerror = fail('network error');
    xhr.onabort = fail('aborted');
    xhr.ontimeout = fail('timed out');
    xhr.onload = () => {
      init.signal.removeEventListener('abort', onAbort);
      const headers = new Headers();
      for (const line of xhr
        .getAllResponseHeaders()
        .trim()
        .split(/[\r\n]+/)) {
        const at = line.indexOf(':');
        if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      resolve(new Response(xhr.status === 204 ? null : (xhr.response as string), { status: xhr.status, headers }));
    };
    xhr.send(init.body);
  });
}
