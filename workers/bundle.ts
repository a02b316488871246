import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';

/** Pre-builds the workflow bundle so production workers start without webpack (WORKFLOW_BUNDLE_PATH). */
async function main() {
  const out = process.argv[2] ?? 'dist/workflow-bundle.js';
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') });
  await writeFile(out, code);
  process.stdout.write(`workflow bundle written to ${out}\n`);
}

main().catch((err) => {
  process.stderr.write(`bundling failed: ${(err as Error).message}\n`);
  process.exit(1);
});
