import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { quietTemporalRuntime } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

/**
 * A session's workflow in flight when a worker that shares session turns starts replays its history:
 * recorded by the code before turns (test/fixtures/workflows: a run, a run queued behind it, a
 * request refused by `reject`, then idle), it must replay without a nondeterminism error: the turn
 * steps are behind the `session-turns` patch.
 */
describe('sessionRunsWorkflow history from before session turns', () => {
  it('replays unchanged', async () => {
    quietTemporalRuntime();
    const history = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'workflows', 'session-runs-before-turns.json'), 'utf8')) as {
      events: { eventId: string | number; workflowExecutionUpdateCompletedEventAttributes?: unknown }[];
    };
    // As test/workflows/maintenance.test.ts: event ids as numbers, the rest in the protobuf object form.
    for (const event of history.events) event.eventId = Number(event.eventId);
    // The history holds what this change touches: runs handed over by update and started as children.
    expect(history.events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes)).toHaveLength(3);
    await expect(Worker.runReplayHistory(suiteWorkflows(), history)).resolves.toBeUndefined();
  });
});
