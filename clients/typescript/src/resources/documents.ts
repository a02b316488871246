/** `client.documents`: the generated methods, and `wait` (until a document is parsed). */
import type { RequestOptions } from '../core';
import { APITimeoutError } from '../errors';
import type { Document, DocumentProgress, DocumentStatus } from '../generated/models';
import { DocumentsBase } from '../generated/resources';
import { sleep } from '../internal';

/** Options of `documents.wait`. */
export interface DocumentWaitOptions extends Omit<RequestOptions, 'timeout' | 'idempotencyKey'> {
  /** How long to wait in all, in milliseconds (default 300 000); then APITimeoutError. */
  timeout?: number;
  /** Called after every poll with the document's `progress` (stage, fraction, chunks). */
  onProgress?: (progress: DocumentProgress, document: Document) => void;
  /** The first pause between polls, in milliseconds (default 500); it grows by half each time, up to 5 s. */
  pollInterval?: number;
}

/** The statuses a parse ends with; any other (`parsing`, or one a later service adds) is waited out. */
const PARSED: ReadonlySet<DocumentStatus> = new Set(['ready', 'failed']);

export class Documents extends DocumentsBase {
  /**
   * Polls the document until its status is `ready` or `failed` (see `error`), and answers it;
   * `onProgress` reports its progress on the way. Throws APITimeoutError after `timeout`.
   */
  async wait(docId: string, options: DocumentWaitOptions = {}): Promise<Document> {
    const { timeout = 300_000, onProgress, pollInterval = 500, ...requestOptions } = options;
    const deadline = Date.now() + timeout;
    let pause = pollInterval;
    for (;;) {
      const document = await this.get(docId, requestOptions);
      onProgress?.(document.progress, document);
      if (PARSED.has(document.status)) return document;
      const left = deadline - Date.now();
      if (left <= 0) throw new APITimeoutError(`Document ${docId} is still ${document.status} after ${timeout} ms.`);
      await sleep(Math.min(pause, left), requestOptions.signal);
      pause = Math.min(pause * 1.5, 5_000);
    }
  }
}
