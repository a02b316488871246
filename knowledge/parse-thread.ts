/** The entry of a parsing thread (see parse-pool.ts): one job per call. */
export { parseDocument } from './parse-document';
