import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

/**
 * Where the suite's workflow bundle is. jest's globalSetup bundles the workflows once per jest run
 * (webpack takes several CPU-seconds: once per worker start it was minutes of a run) and names the
 * file here; the test processes inherit the variable. Each run bundles the sources as they are then.
 */
const BUNDLE_PATH_VARIABLE = 'TEST_WORKFLOW_BUNDLE_PATH';

/** Bundles the workflows into a file of a fresh temporary folder and names it for the test processes. */
export async function writeSuiteWorkflowBundle(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: new DefaultLogger('ERROR'),
  });
  const path = join(await mkdtemp(join(tmpdir(), 'workflow-bundle-')), 'workflow-bundle.js');
  await writeFile(path, code);
  process.env[BUNDLE_PATH_VARIABLE] = path;
}

/** Deletes the bundle's folder at the end of the run. */
export async function removeSuiteWorkflowBundle(): Promise<void> {
  const path = process.env[BUNDLE_PATH_VARIABLE];
  if (path) await rm(dirname(path), { recursive: true, force: true });
}

/** The bundle's path, for startTestWorker and the built worker (WORKFLOW_BUNDLE_PATH). */
export function suiteWorkflowBundlePath(): string {
  const path = process.env[BUNDLE_PATH_VARIABLE];
  if (!path) throw new Error(`${BUNDLE_PATH_VARIABLE} not set: run the tests with jest.config.js, whose globalSetup bundles the workflows`);
  return path;
}

/** Worker.create's and Worker.runReplayHistory's workflows: the suite's bundle. */
export const suiteWorkflows = () => ({ workflowBundle: { codePath: suiteWorkflowBundlePath() } });
