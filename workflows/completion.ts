import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { RunToFinish } from '../activities/llm';
import { firstMessages } from '../completion/context-messages';
import {
  type AnswerStep,
  type AttachmentText,
  type CompletionInput,
  type Passage,
  RUN_FAILURE_TYPE,
  runContextOf,
  stepConfidence,
} from '../completion/run-input';
import { ErrorCodes } from '../common/errors';
import type { Cost, StopReason } from '../common/schemas/completions';
import type { ChatMessage } from '../common/chat-model';
import { addCall, NOTHING_SPENT, type Spend } from '../common/run-spend';
import { ownTimeBoundReached } from './own-time-bound';
import { type ApprovalGate, createApprovalGate, refusedToolResult } from './tool-approval';

export interface CompletionOutcome {
  answer: string;
  reference: Passage[];
  model: string | null;
  stopReason: StopReason;
  artifacts: Array<Record<string, unknown>>;
  cost: Cost;
}

// Reading attachments and recording the result are short database work: local activities, run
// inside the workflow task, so a completion costs no extra server round trip for them. The step
// that answers records the run itself (the answering model call, or processWithoutModel): another
// local activity would cost the reply a round trip through the worker. `finishRun` records the
// others (a token budget reached, or the model call's recording failed).
const { readAttachments, processWithoutModel, finishRun, failRun, recordCanceledRun, beginQueuedRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    maximumInterval: '10 seconds',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['InvalidInput'],
  },
});
const { searchKnowledge } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3, nonRetryableErrorTypes: ['SearchRejected'] },
});

// Lists the run's MCP servers side by side, each within max(10 s, its call deadline): a server that
// fails is skipped by the activity itself, so an attempt fails only on the worker's own trouble.
const { listMcpTools } = proxyActivities<Activities>({
  startToCloseTimeout: '150 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 2 },
  summary: 'mcp tools/list',
});

const SEARCH_TOP_K = 6;
/** Patch id of the run's own time bound (COMPLETION_RUN_TIMEOUT_MS). */
const RUN_TIME_BOUND = 'completion-run-time-bound';

/** Patch id of ending a cancelled run as `canceled` (before it, a cancel failed the run). */
const RUN_CANCEL = 'completion-cancel';

const TOOL_ATTEMPTS = 2;

/**
 * Model and tool calls heartbeat while they wait on their upstream: a cancelled run's cancellation
 * reaches them at the next heartbeat (the worker sends one at least every HEARTBEAT_THROTTLE_MS)
 * and aborts the upstream request; the run waits for that before it records its end. A worker
 * that died mid-call is noticed after the heartbeat timeout instead of the call's whole deadline.
 */
const UPSTREAM_CALL = {
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
} as const;

/** What the run has done so far: what a cancelled run records. */
interface Progress {
  seq: number;
  tokens: number;
  /** The tokens' split and the money, summed over the model calls (see common/run-spend.ts). */
  spent: Spend;
  /** The last finished model step's text. */
  answerSoFar: string;
  model: string | null;
}

/**
 * One completion: optional retrieval, then the agent loop (a model call; the tool calls it asks
 * for, each its own activity; again) until the model answers or a limit is reached; then the
 * answer, messages, events and cost are recorded. A failure is recorded too (an `error` event on
 * the stream) and ends the workflow failed, carrying the spec's error code.
 */
export async function completionWorkflow(input: CompletionInput): Promise<CompletionOutcome> {
  const ctx = runContextOf(input, workflowInfo().runId);
  // At once: a decision may reach the run whenever it waits.
  const gate = createApprovalGate(input.approval);
  const progress: Progress = { seq: input.firstSeq, tokens: 0, spent: NOTHING_SPENT, answerSoFar: '', model: null };
  let seq = input.firstSeq;
  let tokens = 0;
  const work = async (): Promise<CompletionOutcome> => {
    // A run that waited for earlier runs of its session reads the history they left.
    if (input.refreshHistory) {
      const begun = await beginQueuedRun({
        ctx,
        runId: workflowInfo().runId,
        maxMessages: input.limits.historyMaxMessages ?? 20,
        maxChars: input.limits.historyMaxChars ?? 20_000,
      });
      input = { ...input, history: begun.history };
    }
    const attachments: AttachmentText[] =
      input.attachmentIds.length > 0
        ? await readAttachments({ tenantId: input.tenantId, fileIds: input.attachmentIds, maxChars: input.limits.attachmentMaxChars })
        : [];
    const sources = attachments.length > 0 ? attachments.map((a) => a.name) : ['question'];
    let passages: Passage[] = [];
    if (input.route.scenario === 'kbqa') {
      const found = await searchKnowledge({
        ctx,
        seq,
        kbIds: input.kbIds,
        docIds: input.contextIds,
        question: input.question,
        topK: SEARCH_TOP_K,
      });
      passages = found.passages;
      seq = found.nextSeq;
      progress.seq = seq;
    }

    let answer: string;
    let spent = NOTHING_SPENT;
    let model: string | null = null;
    let stopReason: StopReason = 'answered';
    let artifacts: Array<Record<string, unknown>> = [];
    let reference = passages;
    let answerStep: AnswerStep = { step: 1, confidence: 1 };
    if (!input.route.usesModel || !input.model) {
      const done = await processWithoutModel({
        ctx,
        route: input.route,
        question: input.question,
        passages,
        attachments,
        offline: input.offline,
        finish: { seq, requestedAt: input.requestedAt, userId: input.userId, sources },
      });
      ({ answer, artifacts } = done);
      reference = done.reference;
      // Recorded with the answer (a history from before that change records it with finishRun below).
      if (done.finished) return { answer, reference, model, stopReason, artifacts: done.finished.artifacts, cost: done.finished.cost };
    } else {
      // The agent's MCP servers' tools, listed as the run starts (runs from before MCP servers have none: no new command).
      if (input.mcpServers && input.mcpServers.length > 0) {
        const listed = await listMcpTools({
          tenantId: input.tenantId,
          agentId: input.agentId,
          traceId: input.traceId,
          servers: input.mcpServers,
        });
        input = { ...input, tools: [...input.tools, ...listed] };
      }
      const loop = await agentLoop(input, firstMessages(input, passages, attachments), progress, gate, {
        question: input.question,
        reference,
        artifacts: [],
        offline: input.offline,
        route: input.route,
        requestedAt: input.requestedAt,
        userId: input.userId,
        sources,
      });
      ({ answer, model, stopReason, seq, tokens, spent, answerStep } = loop);
      // The model call that answered recorded the run already.
      if (loop.finished) return { answer, reference, model, stopReason, artifacts: loop.finished.artifacts, cost: loop.finished.cost };
    }

    const finished = await finishRun({
      ctx,
      seq,
      question: input.question,
      answer,
      reference,
      artifacts,
      model,
      offline: input.offline,
      route: input.route,
      stopReason,
      tokens,
      spent,
      requestedAt: input.requestedAt,
      userId: input.userId,
      sources,
      answerStep,
    });
    return { answer, reference, model, stopReason, artifacts: finished.artifacts, cost: finished.cost };
  };
  try {
    // Runs started before the bound existed have no timer in their history. Time spent queued counts.
    const bound = input.limits.runTimeoutMs;
    return bound !== undefined && (input.limits.runTimeBoundAlways || patched(RUN_TIME_BOUND))
      ? await CancellationScope.withTimeout(Math.max(1, bound - (input.queuedMs ?? 0)), work)
      : await work();
  } catch (err) {
    if (isCancellation(err) && !ownTimeBoundReached(err) && patched(RUN_CANCEL)) {
      // Cancelled (POST …/cancel, or a later run's interrupt): the run ends `canceled` with what it has.
      await CancellationScope.nonCancellable(() =>
        recordCanceledRun({
          ctx,
          seq: Math.max(seq, progress.seq),
          question: input.question,
          answerSoFar: progress.answerSoFar,
          model: progress.model,
          tokens: Math.max(tokens, progress.tokens),
          spent: progress.spent,
          requestedAt: input.requestedAt,
          beforeStart: false,
        }),
      );
      throw err;
    }
    tokens = Math.max(tokens, progress.tokens);
    seq = Math.max(seq, progress.seq);
    const failure = ownTimeBoundReached(err)
      ? { code: ErrorCodes.INTERNAL, message: `the run did not finish within its time bound (${input.limits.runTimeoutMs} ms)` }
      : classifyFailure(err);
    await failRun({
      ctx,
      seq,
      question: input.question,
      code: failure.code,
      message: failure.message,
      tokens,
      spent: progress.spent,
      requestedAt: input.requestedAt,
    });
    throw ApplicationFailure.create({
      message: failure.message,
      type: RUN_FAILURE_TYPE,
      nonRetryable: true,
      details: [{ code: failure.code }],
    });
  } finally {
    gate.close();
  }
}

/**
 * The longest a step's tool calls may wait for approval: half of what remains of the run's time
 * bound, so that a call that times out still leaves the model time to go on.
 */
function approvalWaitBound(input: CompletionInput): number {
  const bound = input.limits.runTimeoutMs;
  if (bound === undefined) return Number.POSITIVE_INFINITY;
  const runEnds = workflowInfo().runStartTime.getTime() + bound - (input.queuedMs ?? 0);
  return Math.floor((runEnds - Date.now()) / 2);
}

/**
 * The model, then the tools it asks for, until it answers. `run` is how the run is recorded should
 * a call answer (the call records it; the result says so in `finished`).
 */
async function agentLoop(
  input: CompletionInput,
  messages: ChatMessage[],
  progress: Progress,
  gate: ApprovalGate,
  run: Omit<RunToFinish, 'stopReason' | 'tokensBefore' | 'spentBefore'>,
) {
  const ctx = runContextOf(input, workflowInfo().runId);
  const { callModel } = proxyActivities<Activities>({
    ...UPSTREAM_CALL,
    startToCloseTimeout: input.limits.modelCallTimeoutMs + 5_000,
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumAttempts: input.limits.modelAttempts,
      nonRetryableErrorTypes: ['ModelRequestRejected'],
    },
  });
  const toolsByName = new Map(input.tools.map((t) => [t.spec.name, t.binding]));
  let seq = progress.seq;
  let tokens = 0;
  let spent = NOTHING_SPENT;
  let model: string | null = null;
  for (let step = 1; ; step++) {
    const lastStep = step >= input.limits.maxSteps;
    const offerTools = input.tools.length > 0 && !lastStep;
    const stopIfAnswered: StopReason = lastStep && input.tools.length > 0 ? 'step_limit' : 'answered';
    const called = await callModel({
      ctx,
      seq,
      step,
      finishIfAnswered: { ...run, stopReason: stopIfAnswered, tokensBefore: tokens, spentBefore: spent },
      ...(input.model!.providerId ? { providerId: input.model!.providerId } : {}),
      request: {
        model: input.model!.name,
        messages,
        tools: offerTools ? input.tools.map((t) => t.spec) : undefined,
        temperature: input.model!.temperature,
        maxTokens: input.model!.maxTokens,
      },
    });
    seq = called.nextSeq;
    tokens += called.result.usage.totalTokens;
    // A call recorded before calls priced themselves has no amount: it adds no money.
    spent = addCall(spent, called.result.usage, called.amount);
    model = called.result.model;
    const { content, toolCalls } = called.result;
    Object.assign(progress, { seq, tokens, spent, model, answerSoFar: content || progress.answerSoFar });
    const answerStep = { step, confidence: stepConfidence(called.result.finishReason) };
    if (toolCalls.length === 0) {
      return { answer: content, model, stopReason: stopIfAnswered, seq, tokens, spent, answerStep, finished: called.finished };
    }
    if (tokens >= input.limits.maxTokens) {
      return {
        answer: content || 'The run stopped: it reached its token budget before the answer.',
        model,
        stopReason: 'token_limit' as const,
        seq,
        tokens,
        spent,
        answerStep,
        finished: undefined,
      };
    }
    messages = [...messages, { role: 'assistant', content: content || null, tool_calls: toolCalls }];
    // Calls that need a person's approval wait for it; a refused one does not run.
    const reviewed = await gate.review(ctx, seq, step, toolCalls, approvalWaitBound(input));
    seq = reviewed.seq;
    progress.seq = seq;
    // The model may ask for several tools at once: they run side by side, answers kept in order.
    const results = await Promise.all(
      toolCalls.map(async (call) => {
        const verdict = reviewed.verdicts.get(call.id);
        if (verdict && verdict.status !== 'approved') return { content: refusedToolResult(verdict, reviewed.waitMs), nextSeq: seq };
        const binding = toolsByName.get(call.name);
        const timeoutMs =
          binding?.kind === 'http' ? (binding.tool.http.timeout_ms ?? 10_000) : binding?.kind === 'mcp' ? binding.timeoutMs : 30_000;
        const { callTool } = proxyActivities<Activities>({
          ...UPSTREAM_CALL,
          startToCloseTimeout: timeoutMs + 5_000,
          retry: { initialInterval: '1 second', maximumAttempts: TOOL_ATTEMPTS },
          // What the Temporal UI shows for the call (MCP tools only: the other calls' commands stay as they were).
          ...(binding?.kind === 'mcp' ? { summary: `mcp ${call.name}` } : {}),
        });
        return callTool({
          ctx,
          seq,
          step,
          call,
          binding: binding ?? null,
          maxAttempts: TOOL_ATTEMPTS,
          kbIds: input.kbIds,
          contextIds: input.contextIds,
          attachmentIds: input.attachmentIds,
        });
      }),
    );
    seq = Math.max(seq, ...results.map((r) => r.nextSeq));
    progress.seq = seq;
    messages = [
      ...messages,
      ...toolCalls.map((call, i) => ({ role: 'tool' as const, tool_call_id: call.id, content: results[i]!.content })),
    ];
  }
}

/** Maps what ended the run to the spec's codes: model 30001, tool timeout 30002, else 20001. */
function classifyFailure(err: unknown): { code: number; message: string } {
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    if (err.activityType === 'callModel') {
      const detail = cause instanceof ApplicationFailure || cause instanceof TimeoutFailure ? cause.message : 'no answer';
      return { code: ErrorCodes.LLM_FAILED, message: `the language model failed: ${detail}` };
    }
    if (
      err.activityType === 'callTool' &&
      (cause instanceof TimeoutFailure || (cause instanceof ApplicationFailure && cause.type === 'ToolTimedOut'))
    ) {
      return { code: ErrorCodes.TOOL_TIMEOUT, message: `a tool timed out: ${cause.message || 'no answer in time'}` };
    }
  }
  // A failed local activity may reach the workflow as its own ApplicationFailure, unwrapped.
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure && (cause.type === 'SearchRejected' || cause.type === 'InvalidInput'))
    return { code: ErrorCodes.INVALID_PARAMETERS, message: cause.message };
  return { code: ErrorCodes.INTERNAL, message: 'the completion failed inside the service' };
}
