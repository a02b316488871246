const { appendFileSync } = require('node:fs');

/**
 * Prints one plain closing line, `jest: N passed, N failed, N skipped`, that any CI can read. When
 * JEST_SUMMARY_FILE names a file, the counts are added to it as a line too: stack/test.sh runs jest
 * twice (the parallel files, then the serial ones) and prints the sum of both at the end.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    const failed = numFailedTests + numRuntimeErrorTestSuites;
    const skipped = numPendingTests + numTodoTests;
    process.stdout.write(`jest: ${numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
    if (process.env.JEST_SUMMARY_FILE) appendFileSync(process.env.JEST_SUMMARY_FILE, `${numPassedTests} ${failed} ${skipped}\n`);
  }
}
module.exports = SummaryReporter;
