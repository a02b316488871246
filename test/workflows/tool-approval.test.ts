import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import type { CallModelInput } from '../../activities/llm';
import type { CompletionInput } from '../../completion/run-input';
import { completionWorkflow } from '../../workflows/completion';
import { APPROVAL_UNKNOWN, decideApproval } from '../../workflows/tool-approval';
import { timeSkippingEnvironment } from '../support/temporal';
import { suiteWorkflows } from '../support/workflow-bundle';

const HOUR = 3_600_000;

/** A run whose agent wants a person to approve `bank__refund`, with an hour to decide and four to run. */
const runInput = (traceId: string): CompletionInput => ({
  traceId,
  tenantId: 'default',
  agentId: 'agt_approval',
  sessionId: 'ses_approval',
  userId: 'u',
  question: 'refund order A-17',
  stream: true,
  recordEvents: true,
  route: { scenario: 'agent', processor: 'llm', mode: 'default', text: '@agent@llm@default@', usesModel: true },
  offline: false,
  model: { name: 'scripted' },
  systemPrompt: '',
  history: [],
  tools: [
    {
      spec: { name: 'bank__refund', description: 'Refunds an order', parameters: { type: 'object' } },
      binding: {
        kind: 'http',
        skillId: 'skl_bank',
        skillName: 'bank',
        tool: {
          name: 'refund',
          description: 'Refunds an order',
          parameters: { type: 'object' },
          http: { method: 'POST', url: 'http://bank.invalid/refund' },
        },
      },
    },
  ],
  approval: { tools: ['bank__refund'], timeoutMs: HOUR },
  kbIds: [],
  contextIds: [],
  attachmentIds: [],
  limits: {
    maxSteps: 4,
    maxTokens: 100_000,
    attachmentMaxChars: 1_000,
    modelCallTimeoutMs: 10_000,
    modelAttempts: 1,
    runTimeoutMs: 4 * HOUR,
  },
  requestedAt: Date.now(),
  firstSeq: 1,
});

/**
 * Stand-ins for the model (it asks for the refund, then answers with what the tool said) and the
 * recording activities, noting what the workflow asked of them.
 */
function standIns() {
  const seen = {
    modelRequests: [] as CallModelInput[],
    toolCalls: 0,
    approvalsAsked: [] as Array<{ approvalId: string; tool: string; args: Record<string, unknown> }>,
    waitsMs: [] as number[],
    verdicts: [] as Array<{ status: string; comment: string | null }>,
  };
  const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2, estimated: false };
  const activities: Partial<Activities> = {
    callModel: async (input: CallModelInput) => {
      seen.modelRequests.push(input);
      const result =
        input.step === 1
          ? {
              content: '',
              toolCalls: [{ id: 'call_1', name: 'bank__refund', arguments: '{"order":"A-17"}' }],
              usage,
              finishReason: 'tool_calls',
              model: 'scripted',
            }
          : { content: 'Done.', toolCalls: [], usage, finishReason: 'stop', model: 'scripted' };
      return {
        result,
        nextSeq: input.seq + 1,
        ...(result.toolCalls.length === 0 ? { finished: { artifacts: [], cost: { tokens: 4, duration_ms: 1 } } } : {}),
      };
    },
    callTool: async ({ seq }) => {
      seen.toolCalls++;
      return { content: '{"refunded":true}', ok: true, nextSeq: seq + 2 };
    },
    requestApprovals: async ({ seq, asks, requestedAt, expiresAt }) => {
      seen.approvalsAsked.push(...asks);
      seen.waitsMs.push(expiresAt - requestedAt);
      return { nextSeq: seq + asks.length };
    },
    recordApprovalDecision: async ({ seq, verdict }) => {
      seen.verdicts.push({ status: verdict.status, comment: verdict.comment });
      return { nextSeq: seq + 1 };
    },
  };
  return { seen, activities };
}

// Without a workflow cache, so no sticky queue: the test server hands a stopped worker's sticky tasks to nobody.
const workerOn = (env: TestWorkflowEnvironment, taskQueue: string, activities: Partial<Activities>) =>
  Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...suiteWorkflows(),
    activities,
    maxCachedWorkflows: 0,
  });

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const toolMessageOf = (request: CallModelInput) => request.request.messages.find((m) => m.role === 'tool')?.content;

/**
 * The approval wait is a durable Temporal timer: on the time-skipping server an hour passes in
 * moments, and the wait outlives the worker that began it.
 */
describe('tool call approval on the time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await timeSkippingEnvironment();
  });
  afterAll(() => env?.teardown());

  it('counts an approval nobody gives within its timeout as rejected, though the worker restarted meanwhile', async () => {
    const taskQueue = 'approval-timeout';
    const { seen, activities } = standIns();
    const first = await workerOn(env, taskQueue, activities);
    const firstRunning = first.run();
    const handle = await env.client.workflow.start(completionWorkflow, {
      taskQueue,
      workflowId: 'approval-timeout',
      args: [runInput('trc_timeout')],
    });
    await until(() => seen.approvalsAsked.length === 1);
    // The wait has begun once its timer is in the history.
    for (let tries = 0; !(await handle.fetchHistory()).events?.some((e) => e.timerStartedEventAttributes); tries++) {
      if (tries > 200) throw new Error('no timer started');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.shutdown();
    await firstRunning;

    // A new worker (nothing cached: it rebuilds the run from its history) waits out the hour, skipped.
    const second = await workerOn(env, taskQueue, activities);
    const outcome = await second.runUntil(handle.result());

    expect(outcome).toMatchObject({ answer: 'Done.', stopReason: 'answered' });
    expect(seen.verdicts).toEqual([{ status: 'timed_out', comment: null }]);
    expect(seen.toolCalls).toBe(0);
    expect(seen.modelRequests).toHaveLength(2);
    expect(JSON.parse(toolMessageOf(seen.modelRequests[1]!)!)).toEqual({
      error: 'the tool did not run: nobody approved the call within 3600 s',
    });
  });

  it('takes a decision given late in the wait, after refusing one for an approval the run does not have', async () => {
    const taskQueue = 'approval-late';
    const { seen, activities } = standIns();
    const worker = await workerOn(env, taskQueue, activities);
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start(completionWorkflow, {
        taskQueue,
        workflowId: 'approval-late',
        args: [runInput('trc_late')],
      });
      await until(() => seen.approvalsAsked.length === 1);
      await env.sleep(HOUR - 60_000);

      const unknown = await handle
        .executeUpdate(decideApproval, { args: [{ approvalId: 'apr_unknown', decision: 'approve', decidedBy: 'user:ann' }] })
        .catch((err: unknown) => err);
      expect(unknown).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((unknown as WorkflowUpdateFailedError).cause).toMatchObject({ type: APPROVAL_UNKNOWN });

      const { approvalId } = seen.approvalsAsked[0]!;
      const decided = await handle.executeUpdate(decideApproval, {
        args: [{ approvalId, decision: 'approve', comment: 'fine', decidedBy: 'user:ann' }],
      });
      expect(decided).toEqual({ applied: true, status: 'approved' });
      expect(await handle.result()).toMatchObject({ answer: 'Done.' });
    });
    expect(seen.approvalsAsked).toEqual([
      { approvalId: expect.stringMatching(/^apr_[0-9a-f]{32}$/), tool: 'bank__refund', args: { order: 'A-17' } },
    ]);
    expect(seen.verdicts).toEqual([{ status: 'approved', comment: 'fine' }]);
    expect(seen.toolCalls).toBe(1);
    expect(toolMessageOf(seen.modelRequests[1]!)).toBe('{"refunded":true}');
  });

  it("waits at most half of what remains of the run's time bound, whatever timeout_s says", async () => {
    const taskQueue = 'approval-clamped';
    const { seen, activities } = standIns();
    const worker = await workerOn(env, taskQueue, activities);
    const input = runInput('trc_clamped');
    input.limits.runTimeoutMs = HOUR;
    const outcome = await worker.runUntil(
      env.client.workflow.execute(completionWorkflow, { taskQueue, workflowId: 'approval-clamped', args: [input] }),
    );
    expect(outcome).toMatchObject({ answer: 'Done.' });
    expect(seen.waitsMs).toHaveLength(1);
    expect(seen.waitsMs[0]).toBeLessThanOrEqual(HOUR / 2);
    expect(seen.waitsMs[0]).toBeGreaterThan(HOUR / 2 - 60_000);
    expect(seen.verdicts).toEqual([{ status: 'timed_out', comment: null }]);
    expect(JSON.parse(toolMessageOf(seen.modelRequests[1]!)!)).toEqual({
      error: `the tool did not run: nobody approved the call within ${Math.round(seen.waitsMs[0]! / 1000)} s`,
    });
  });
});
