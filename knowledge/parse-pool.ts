import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { Config } from '../common/config';
import { type AttachmentJob, type AttachmentOutcome, extractAttachment } from './extract-attachment';
import type { ZipLimits } from './extract';
import { type ParseFailed, type ParseJob, type ParseOutcome, parseDocument } from './parse-document';
import type * as ParseThread from './parse-thread';

/** Documents of knowledge bases, parsed into chunks (the worker). */
export interface DocumentParsing {
  /** `signal`: the caller gave up (a cancelled activity); the job's thread is freed and the signal's reason thrown. */
  parse(job: ParseJob, signal?: AbortSignal): Promise<ParseOutcome>;
  close(): Promise<void>;
}

/** Attachments read as text (POST /v1/files, the API). */
export interface AttachmentExtraction {
  extract(job: AttachmentJob): Promise<AttachmentOutcome>;
  close(): Promise<void>;
}

export interface ParsePoolOptions {
  threads: number;
  /** A job still running after this long is stopped, and the file fails as `corrupt`. */
  timeoutMs: number;
  /** Heap of each thread; a file that needs more fails as `too_large`. */
  memoryMb?: number;
  zipLimits?: ZipLimits;
}

/** The pool's options from the configuration, with the deadline of its kind of job. */
export function parsePoolOptions(config: Config, timeoutMs: number): ParsePoolOptions {
  return {
    threads: config.PARSE_THREADS,
    timeoutMs,
    memoryMb: config.PARSE_THREAD_MEMORY_MB,
    zipLimits: { maxUncompressedBytes: config.ZIP_MAX_UNCOMPRESSED_BYTES, maxCompressionRatio: config.ZIP_MAX_COMPRESSION_RATIO },
  };
}

const THREAD_ENTRY = join(__dirname, 'parse-thread.js');

/**
 * Parses uploads in a pool of threads. Extraction, splitting and token counting are synchronous
 * CPU work (a large spreadsheet or text takes seconds): on the process's own thread they would
 * stall every other activity or request, and nothing could stop a runaway file or bound its memory.
 * Threads start with the first uploads and then stay, keeping their compiled code and tokenizer
 * cache warm (a process that never parses holds none).
 *
 * Where the compiled entry does not exist (Jest runs the TypeScript sources) files are parsed on
 * the calling thread, with the same functions and without the time and memory limits.
 */
export function createParsePool({ threads, timeoutMs, memoryMb, zipLimits }: ParsePoolOptions): DocumentParsing & AttachmentExtraction {
  if (!existsSync(THREAD_ENTRY)) {
    return {
      parse: (job) => parseDocument({ ...job, zipLimits }),
      extract: (job) => extractAttachment({ ...job, zipLimits }),
      close: () => Promise.resolve(),
    };
  }
  const pool = new Piscina({
    filename: THREAD_ENTRY,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: Infinity,
    ...(memoryMb ? { resourceLimits: { maxOldGenerationSizeMb: memoryMb } } : {}),
  });
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

  async function run<R>(name: keyof typeof ParseThread, job: object, caller?: AbortSignal): Promise<R | ParseFailed> {
    await slot();
    try {
      caller?.throwIfAborted();
      const signal = caller ? AbortSignal.any([AbortSignal.timeout(timeoutMs), caller]) : AbortSignal.timeout(timeoutMs);
      return (await pool.run({ ...job, zipLimits }, { name, signal })) as R;
    } catch (err) {
      if (caller?.aborted) throw caller.reason;
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        return { kind: 'failed', reason: 'too_large', message: `the file needs more than the ${memoryMb} MB of memory a parse may use` };
      }
      if ((err as Error).name !== 'AbortError') throw err;
      return { kind: 'failed', reason: 'corrupt', message: `the file could not be parsed within ${Math.round(timeoutMs / 1000)} s` };
    } finally {
      release();
    }
  }

  return {
    parse: (job, signal) => run<ParseOutcome>('parseDocument', job, signal),
    extract: (job) => run<AttachmentOutcome>('extractAttachment', job),
    close: () => pool.destroy(),
  };
}
