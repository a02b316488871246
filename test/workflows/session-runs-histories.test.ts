import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { quietTemporalRuntime } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

interface FixtureEvent {
  eventId: string | number;
  workflowExecutionUpdateCompletedEventAttributes?: unknown;
  requestCancelExternalWorkflowExecutionInitiatedEventAttributes?: unknown;
  timerFiredEventAttributes?: unknown;
  workflowExecutionCompletedEventAttributes?: unknown;
}

const fixture = (name: string) => {
  const history = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'workflows', name), 'utf8')) as { events: FixtureEvent[] };
  // As test/workflows/maintenance.test.ts: event ids as numbers, the rest in the protobuf object form.
  for (const event of history.events) event.eventId = Number(event.eventId);
  return history;
};

/**
 * A session's workflow in flight when a worker that shares session turns starts replays its history:
 * recorded by the code before turns (test/fixtures/workflows), it must replay without a
 * nondeterminism error: the turn steps ask for the `session-turns` patch, each time they run.
 */
describe('sessionRunsWorkflow histories from before session turns', () => {
  beforeAll(() => quietTemporalRuntime());

  it('replays a run, a run queued behind it and a refusal, still going', async () => {
    const history = fixture('session-runs-before-turns.json');
    // The history holds what this change touches: runs handed over by update and started as children.
    expect(history.events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes)).toHaveLength(3);
    await expect(Worker.runReplayHistory(suiteWorkflows(), history)).resolves.toBeUndefined();
  });

  it('replays an interrupt, a cancelled queued run, a refusal and the idle end', async () => {
    const history = fixture('session-runs-before-turns-interrupted.json');
    // Four runs handed over by update (the second an interrupt, which cancelled the first), one queued
    // run cancelled by update, one refusal, and the workflow ended idle.
    expect(history.events.filter((e) => e.requestCancelExternalWorkflowExecutionInitiatedEventAttributes)).toHaveLength(1);
    expect(history.events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes)).toHaveLength(6);
    expect(history.events.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);
    expect(history.events.at(-1)?.workflowExecutionCompletedEventAttributes).toBeDefined();
    await expect(Worker.runReplayHistory(suiteWorkflows(), history)).resolves.toBeUndefined();
  });
});
