import { invalid } from '../common/errors';
import type { FileInfo } from '../common/schemas/files';
import type { AttachmentExtraction } from '../knowledge/parse-pool';
import type { FileStore } from '../stores/files';

export interface Upload {
  tenantId: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * Attachments: the file's text is extracted and counted in parsing threads (off the API's event
 * loop), then stored. A file that cannot be read (unsupported, encrypted, corrupt, empty, a zip
 * bomb) is refused with 10001 naming the reason, and nothing is stored.
 */
export function createFileCommands({ files, extraction }: { files: FileStore; extraction: Pick<AttachmentExtraction, 'extract'> }) {
  return {
    async upload(input: Upload): Promise<FileInfo> {
      const outcome = await extraction.extract({ bytes: input.bytes, name: input.name, contentType: input.contentType });
      if (outcome.kind === 'failed') throw invalid(`body.file: ${outcome.message}`, { field: 'body.file', reason: outcome.reason });
      // Our side (an extraction engine that did not load): a 20001, the client may try again.
      if (outcome.kind === 'unavailable') throw new Error(outcome.message);
      return files.create({
        tenantId: input.tenantId,
        name: input.name,
        contentType: input.contentType,
        format: outcome.format,
        sizeBytes: input.bytes.length,
        text: outcome.text,
        truncated: outcome.truncated,
        tokenCount: outcome.tokenCount,
      });
    },
  };
}
