import { createHash } from 'node:crypto';

/**
 * Same document, position and parse: same id. A re-run after a crash overwrites instead of adding.
 * The upload's own parse (1) keeps the ids chunks had before documents could be reparsed; a
 * reparse's chunks have ids of their own, so they sit beside the previous parse's until it succeeds.
 */
export const chunkIdFor = (docId: string, position: number, parse = 1) =>
  `chk_${createHash('sha256')
    .update(parse === 1 ? `${docId}\u0000${position}` : `${docId}\u0000${position}\u0000${parse}`)
    .digest('hex')
    .slice(0, 24)}`;
