/** The entry of a parsing thread (see parse-pool.ts): one job per call, the function named by the pool. */
export { extractAttachment } from './extract-attachment';
export { parseDocument } from './parse-document';
