import { startedEarly } from '../common/started-early';
import type { DocumentProgress } from '../stores/documents';

/**
 * A parse's progress as clients poll it, written only once the parse has run for `quietMs`: most
 * documents are done sooner, and their whole progress is then recorded once, by the final write,
 * instead of in three or four writes that nobody could have read. After that each report is
 * written, in order, each carrying every field reported so far.
 */
export function createProgressReporter(write: (fields: DocumentProgress) => Promise<boolean>, quietMs: number) {
  const latest: DocumentProgress = {};
  let live = false;
  // false once a write found no document being parsed (it was deleted).
  let written: Promise<boolean> = Promise.resolve(true);
  const flush = () => {
    const fields = { ...latest };
    written = startedEarly(written.then((ok) => (ok ? write(fields) : false)));
  };
  const timer = setTimeout(() => {
    live = true;
    if (Object.keys(latest).length > 0) flush();
  }, quietMs);

  return {
    report(fields: DocumentProgress): void {
      Object.assign(latest, fields);
      if (live) flush();
    },
    /** Every field reported so far, for the final write. */
    get latest(): DocumentProgress {
      return { ...latest };
    },
    /** Writes every field reported so far now, quiet time or not (a parse that failed keeps how far it got). */
    writeNow(): Promise<boolean> {
      flush();
      return written;
    },
    /** Whether the writes so far found the document still being parsed (true when none was due). */
    settled: (): Promise<boolean> => written,
    /** No write starts after this; one under way is awaited. */
    async stop(): Promise<boolean> {
      clearTimeout(timer);
      live = false;
      return written;
    },
  };
}
