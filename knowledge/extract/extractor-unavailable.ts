/**
 * The extraction engine itself could not run (a library failed to load, a worker could not start).
 * Not the document's fault, so not an ExtractionError: the caller should retry, not fail the file.
 */
export class ExtractorUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractorUnavailableError';
  }
}
