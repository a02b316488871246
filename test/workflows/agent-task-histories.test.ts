import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { quietTemporalRuntime } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

/**
 * Agent tasks in flight when a worker with the run-id and cancel patches starts replay their
 * history: recorded by the code before them (test/fixtures/workflows), a task whose run answered and
 * one whose run was cancelled (it failed then) must replay without a nondeterminism error.
 */
describe('agentTaskWorkflow histories from before recording the run id at start and ending a cancelled run completed', () => {
  it.each(['completed', 'canceled'])('replay unchanged: a task whose run %s (both changes are behind patches)', async (outcome) => {
    quietTemporalRuntime();
    const history = JSON.parse(
      readFileSync(join(__dirname, '..', 'fixtures', 'workflows', `agent-task-before-run-patches-${outcome}.json`), 'utf8'),
    ) as { events: { eventId: string | number }[] };
    // As test/workflows/maintenance.test.ts: event ids as numbers, the rest in the protobuf object form.
    for (const event of history.events) event.eventId = Number(event.eventId);
    await expect(Worker.runReplayHistory(suiteWorkflows(), history)).resolves.toBeUndefined();
  });
});
