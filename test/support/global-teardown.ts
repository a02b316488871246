import { removeSuiteWorkflowBundle } from './workflow-bundle';

/** Removes what globalSetup made for this jest run. */
export default async function globalTeardown(): Promise<void> {
  await removeSuiteWorkflowBundle();
}
