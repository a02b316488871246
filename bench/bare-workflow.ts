import { proxyActivities } from '@temporalio/workflow';

const { noop } = proxyActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** The baseline unit of work on Temporal: one workflow that runs one no-op activity. */
export async function bareOneActivityWorkflow(): Promise<void> {
  await noop();
}
