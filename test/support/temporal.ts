import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';

let installed = false;
/** Keeps the SDK's INFO and WARN lines (expected failures included) out of the test output. */
export function quietTemporalRuntime(): void {
  if (installed) return;
  installed = true;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

/**
 * Temporal's Java time-skipping test server from Maven Central (stack/install.sh test-server):
 * the SDK's own download of a test server cannot work on a machine without internet access.
 */
export function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (!path) throw new Error('TEMPORAL_TEST_SERVER_PATH not set: run the suite with "npm test"');
  quietTemporalRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
}
