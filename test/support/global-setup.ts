import { writeSuiteWorkflowBundle } from './workflow-bundle';

/**
 * The suite talks to the real local stack; stack/test.sh brings it up and exports its addresses.
 * The workflows are bundled here, once for every test file of this jest run.
 */
export default async function globalSetup(): Promise<void> {
  const missing = ['MONGODB_URI', 'ELASTICSEARCH_URL', 'TEMPORAL_ADDRESS'].filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(`${missing.join(', ')} not set: run the suite with "npm test", which starts the local stack`);
  }
  await writeSuiteWorkflowBundle();
}
