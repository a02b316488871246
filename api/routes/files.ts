import { z } from 'zod';
import { deletedResult } from '../../common/schemas/common';
import { file, fileId, fileUploadBody, fileUploadFields, MAX_FILE_TEXT_BYTES } from '../../common/schemas/files';
import { SUPPORTED_FORMATS } from '../../knowledge/extract';
import { uploadedFile } from '../middleware/upload-body';
import { defineRoute } from '../route';
import type { Services } from '../services';

const tag = 'Files';
const fileParams = z.object({ file_id: fileId }).strict();

export const fileRoutes = ({ files, commands }: Services) => [
  defineRoute({
    method: 'post',
    path: '/v1/files',
    operationId: 'uploadFile',
    tag,
    multipart: { documented: fileUploadBody },
    summary: 'Upload a file completions can read as an attachment',
    description:
      'multipart/form-data with one part `file`, at most MAX_UPLOAD_BYTES (default 50 MiB). Its text is extracted at once, ' +
      'in a parsing thread within FILE_PARSE_TIMEOUT_MS ' +
      `(formats: ${SUPPORTED_FORMATS.map((f) => f.format).join(', ')}); an unsupported, encrypted, corrupt or empty file, or one ` +
      'too large to unpack (a zip bomb, `too_large`), is ' +
      `refused with 10001 and \`reason\`, and nothing is stored. Text beyond ${MAX_FILE_TEXT_BYTES} bytes is cut (\`truncated\`). ` +
      "Pass the file_id in a completion's `attachments`. Counts against the 10-per-minute upload limit.",
    body: fileUploadFields,
    response: file,
    handler: async ({ ctx, principal }) => {
      const part = uploadedFile(ctx);
      return commands.files.upload({
        tenantId: principal.tenantId,
        name: (part.originalFilename ?? 'upload').slice(0, 255),
        contentType: part.mimetype ?? 'application/octet-stream',
        bytes: part.contents,
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/files/{file_id}',
    operationId: 'getFile',
    tag,
    summary: "Get a file's details and the start of its text",
    params: fileParams,
    response: file,
    handler: ({ principal, params }) => files.get(principal.tenantId, params.file_id),
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/files/{file_id}',
    operationId: 'deleteFile',
    tag,
    summary: 'Delete a file',
    description: 'Completions already running with it as an attachment may fail with 10004.',
    params: fileParams,
    response: deletedResult,
    handler: async ({ principal, params }) => {
      await files.delete(principal.tenantId, params.file_id);
      return { deleted: true as const };
    },
  }),
];
