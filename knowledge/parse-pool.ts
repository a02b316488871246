import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { type ParseJob, type ParseOutcome, parseDocument } from './parse-document';

export interface DocumentParsing {
  parse(job: ParseJob): Promise<ParseOutcome>;
  close(): Promise<void>;
}

export interface ParsePoolOptions {
  threads: number;
  /** A parse still running after this long is stopped, and the file fails as `corrupt`. */
  timeoutMs: number;
}

const THREAD_ENTRY = join(__dirname, 'parse-thread.js');

/**
 * Parses uploads in a pool of threads. Extraction and splitting are synchronous CPU work (a large
 * spreadsheet or text takes seconds): on the worker's own thread they would stall every other
 * activity's I/O and heartbeats and every workflow task, and nothing could stop a runaway file.
 * Threads start with the first uploads and then stay, keeping their compiled code and tokenizer
 * cache warm (a worker that never parses holds none).
 *
 * Where the compiled entry does not exist (Jest runs the TypeScript sources) files are parsed on
 * the calling thread, with the same function and without the time limit.
 */
export function createParsePool({ threads, timeoutMs }: ParsePoolOptions): DocumentParsing {
  if (!existsSync(THREAD_ENTRY)) return { parse: parseDocument, close: async () => undefined };
  const pool = new Piscina({ filename: THREAD_ENTRY, name: 'parseDocument', minThreads: 0, maxThreads: threads, idleTimeout: Infinity });
  // Jobs wait here rather than in the pool's queue, so that a file's time limit starts when a thread takes it.
  const waiting: Array<() => void> = [];
  let running = 0;
  const slot = async () => {
    if (running >= threads) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
  };
  const release = () => {
    running--;
    waiting.shift()?.();
  };
  return {
    async parse(job) {
      await slot();
      try {
        return (await pool.run(job, { signal: AbortSignal.timeout(timeoutMs) })) as ParseOutcome;
      } catch (err) {
        if ((err as Error).name !== 'AbortError') throw err;
        return { kind: 'failed', reason: 'corrupt', message: `the file could not be parsed within ${Math.round(timeoutMs / 1000)} s` };
      } finally {
        release();
      }
    },
    close: () => pool.destroy(),
  };
}
