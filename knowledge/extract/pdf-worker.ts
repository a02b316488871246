import { Worker } from 'node:worker_threads';
import { ExtractionError } from '../document-model';
import { ExtractorUnavailableError } from './extractor-unavailable';

/** One text item as pdf.js reports it. */
export interface RawTextItem {
  str: string;
  transform: number[];
  width: number;
  hasEOL: boolean;
}

export interface RawPdf {
  pageCount: number;
  title?: string;
  /** Text items per page, first page first. */
  pages: RawTextItem[][];
}

type WorkerReply = ({ ok: true } & RawPdf) | { ok: false; failure: 'password' | 'unreadable' | 'engine' };

/**
 * pdf.js runs in a worker thread: it is an ES module that unpdf loads with a dynamic import(),
 * which a plain Node thread supports everywhere (Jest's CommonJS sandbox does not), and a
 * hostile PDF can only exhaust the worker's own heap and time budget, not the activity worker's.
 * The source is inline so that it ships with the compiled TypeScript without a build step.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { getDocumentProxy, getResolvedPDFJS } = require(workerData.unpdfPath);
(async () => {
  try {
    await getResolvedPDFJS();
  } catch {
    return parentPort.postMessage({ ok: false, failure: 'engine' });
  }
  let pdf;
  try {
    pdf = await getDocumentProxy(workerData.bytes, { verbosity: 0 });
    const pages = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      pages.push(content.items.filter((item) => 'str' in item)
        .map(({ str, transform, width, hasEOL }) => ({ str, transform, width, hasEOL })));
      page.cleanup();
    }
    let title;
    try {
      const { info } = await pdf.getMetadata();
      if (info && typeof info.Title === 'string') title = info.Title;
    } catch {}
    parentPort.postMessage({ ok: true, pageCount: pdf.numPages, title, pages });
  } catch (error) {
    const failure = error && error.name === 'PasswordException' ? 'password' : 'unreadable';
    parentPort.postMessage({ ok: false, failure });
  } finally {
    if (pdf) await pdf.destroy().catch(() => {});
  }
})();
`;

const TIME_LIMIT_MS = 120_000;
const HEAP_LIMIT_MB = 1024;

function replyToResult(reply: WorkerReply): RawPdf {
  if (reply.ok) return reply.title === undefined ? { pageCount: reply.pageCount, pages: reply.pages } : reply;
  if (reply.failure === 'password') {
    throw new ExtractionError('encrypted', 'the PDF is password-protected; upload it without the password');
  }
  if (reply.failure === 'engine') throw new ExtractorUnavailableError('the PDF engine (pdf.js) could not be loaded');
  throw new ExtractionError('corrupt', 'the PDF is damaged or not a PDF and cannot be read');
}

/** The text items of every page and the Info title, read by pdf.js in a worker thread. */
export function readPdf(bytes: Buffer): Promise<RawPdf> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => RawPdf) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // The outcome is settled; a thread that fails to stop has nothing left to report.
      worker.terminate().catch(() => undefined);
      try {
        resolve(outcome());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // A copy, so pdf.js never shares memory with the caller's (possibly pooled) Buffer.
      workerData: { unpdfPath: require.resolve('unpdf'), bytes: new Uint8Array(bytes) },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
    });
    const timer = setTimeout(() => {
      settle(() => {
        throw new ExtractionError('unsupported', `the PDF could not be read within ${TIME_LIMIT_MS / 1000} seconds`);
      });
    }, TIME_LIMIT_MS);
    worker.once('message', (reply: WorkerReply) => settle(() => replyToResult(reply)));
    worker.once('error', (error: Error & { code?: string }) =>
      settle(() => {
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          throw new ExtractionError('unsupported', 'the PDF needs more memory to read than is allowed');
        }
        throw new ExtractorUnavailableError('the PDF reader stopped unexpectedly');
      }),
    );
    worker.once('exit', () =>
      settle(() => {
        throw new ExtractorUnavailableError('the PDF reader exited without an answer');
      }),
    );
  });
}
