import { createHash } from 'node:crypto';

/** Same document, same position: same id. A re-run after a crash overwrites instead of adding. */
export const chunkIdFor = (docId: string, position: number) =>
  `chk_${createHash('sha256').update(`${docId}\u0000${position}`).digest('hex').slice(0, 24)}`;
