import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { agentTaskWorkflow } from '../../workflows/agent-task';
import { maintenanceWorkflow } from '../../workflows/maintenance';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { webhookReplayWorkflow } from '../../workflows/webhook-replay';
import { timeSkippingEnvironment } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

/** An activity that never answers; it heartbeats so that it hears when it is no longer wanted, and then stops. */
const stalled = async (): Promise<number> => {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 200);
  try {
    return await ctx.cancelled;
  } finally {
    clearInterval(beat);
  }
};
const databaseDown = async (): Promise<never> => {
  throw new Error('database unavailable');
};

async function run<T>(
  env: TestWorkflowEnvironment,
  name: string,
  activities: Partial<Activities>,
  execute: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `time-bounds-${name}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...suiteWorkflows(),
    activities,
  });
  return worker.runUntil(execute(taskQueue));
}

/** A time-skipping server for the enclosing describe; `env()` once it is up. */
function ownServer(): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
  });
  afterAll(() => env?.teardown());
  return () => env!;
}

const failureOf = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as Error & { type?: string };
};

/**
 * Each kind of workflow ends within its own bound when what it waits on never comes (a database
 * that stays down, an activity that never returns), on the time-skipping server: hours pass in
 * seconds. The activities stand in for a database that does not answer.
 */
describe('workflow time bounds', () => {
  const env = ownServer();

  // A database down for INFRA_RETRY_BOUND ends the attempt the same way; local activities' retries
  // run inside the worker, so that wait cannot be skipped here.
  it('counts an attempt whose activity fails as failed and dead-letters the delivery after the schedule', async () => {
    const deadLettered: string[] = [];
    const input = {
      deliveryId: 'dlv_bound',
      tenantId: 'default',
      subscriptionId: 'sub_bound',
      envelope: { event_id: 'evt_bound' } as never,
    };
    const outcome = await run(
      env(),
      'delivery',
      {
        attemptDelivery: async () => {
          throw ApplicationFailure.nonRetryable('database unavailable');
        },
        deadLetter: async ({ deliveryId }) => {
          deadLettered.push(deliveryId);
        },
      },
      (taskQueue) =>
        env().client.workflow.execute(webhookDeliveryWorkflow, { taskQueue, workflowId: 'time-bound-delivery', args: [input] }),
    );
    expect(outcome).toEqual({ status: 'dead', attempts: 5 });
    expect(deadLettered).toEqual(['dlv_bound']);
  });

  it('fails a replay still going at its time bound, saying so', async () => {
    const input = {
      replayId: 'rpl_bound',
      tenantId: 'default',
      since: '2026-01-01T00:00:00Z',
      until: '2026-02-01T00:00:00Z',
      timeoutMs: 300_000,
    };
    const result = run(env(), 'replay', { prepareReplayPage: databaseDown }, (taskQueue) =>
      env().client.workflow.execute(webhookReplayWorkflow, { taskQueue, workflowId: 'time-bound-replay', args: [input] }),
    );
    const cause = await failureOf(result);
    expect(cause).toMatchObject({
      type: 'ReplayTimedOut',
      message: expect.stringContaining('time bound (300000 ms): 0 deliveries started'),
    });
  });

  it('fails an agent task whose preparation does not finish in time, recording it on its run', async () => {
    const recorded: Array<{ workflowId: string; message: string }> = [];
    const task = {
      tenantId: 'default',
      origin: 'cron:crn_bound',
      key: 'scheduled',
      agentId: 'agt_bound',
      sessionTemplate: 'plain',
      inputs: {},
      question: 'hello?',
      event: null,
    };
    const result = run(
      env(),
      'agent-task',
      {
        prepareAgentTask: databaseDown,
        failAgentTask: async ({ workflowId, message }) => {
          recorded.push({ workflowId, message });
        },
      },
      (taskQueue) => env().client.workflow.execute(agentTaskWorkflow, { taskQueue, workflowId: 'time-bound-agent-task', args: [task] }),
    );
    const cause = await failureOf(result);
    expect(cause).toMatchObject({
      type: 'AgentTaskTimedOut',
      message: expect.stringContaining('preparation did not finish within its time bound'),
    });
    expect(recorded).toEqual([{ workflowId: 'time-bound-agent-task', message: cause.message }]);
  });
});

// A server of its own: the stalled activity would hold the clock of a shared one.
describe('maintenance time bound', () => {
  const env = ownServer();

  it('ends a maintenance run whose activity does not return before the next run is due', async () => {
    const result = run(env(), 'maintenance', { sweepOutboxes: stalled }, (taskQueue) =>
      env().client.workflow.execute(maintenanceWorkflow, { taskQueue, workflowId: 'time-bound-maintenance' }),
    );
    const cause = await failureOf(result);
    expect(cause).toMatchObject({ type: 'MaintenanceTimedOut', message: expect.stringContaining('time bound (45000 ms)') });
    // The running activity holds the server's clock, so the 45 s bound passes in real time: jest's 60 s
    // left too little for the worker's start beside other test files (it timed out so, 2 workers on 2 busy cores).
  }, 180_000);
});
