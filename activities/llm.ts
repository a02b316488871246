import { ApplicationFailure, Context, log } from '@temporalio/activity';
import {
  InvalidReviewOutputError,
  parseReviewOutput,
  REVIEW_RESPONSE_FORMAT,
  type ReviewOutput,
  streamedReport,
} from '../completion/review-report';
import { countFindings } from '../completion/review-rule-table';
import { reviewArtifact } from '../completion/run-artifacts';
import { recordsEvents, type RunContext, stepConfidence } from '../completion/run-input';
import { agentStepEvent } from '../completion/agent-step-event';
import { whileHeartbeating } from './heartbeat';
import type { FinishedRun, FinishRunInput } from '../completion/run-endings';
import { ChatModelError, type ChatRequest, type ChatResult } from '../common/chat-model';
import { addCall, callAmount, type Spend } from '../common/run-spend';
import type { ModelChats } from '../upstream/models/model-chats';
import { AppError, ErrorCodes } from '../common/errors';
import { startedEarly } from '../common/started-early';
import { storableText } from '../common/storable-text';
import { storedMessage } from '../common/stream-messages';
import type { EventLog } from '../stores/event-log';
import type { RunEventStore, StreamEvent } from '../stores/run-events';

export interface LlmActivityDeps {
  /** The chat client of a run's model provider: the agent's, or the installation's default (none configured: the API routes such runs offline). */
  chats: Pick<ModelChats, 'forProvider'>;
  runEvents: RunEventStore;
  eventLog: EventLog;
  /** Least time between two `message` events of one stream (each stores the text added since the last one). */
  messageIntervalMs?: number;
  /** Records a run the model has just answered (the `finishRun` activity's work). */
  recordFinishedRun?: (input: FinishRunInput) => Promise<FinishedRun>;
  /** The answer an earlier attempt of the answering call recorded, if one did (even in part). */
  recordedRun?: (ctx: RunContext) => Promise<RecordedRun | null>;
  /** Keeps what a cancelled call had streamed: the partial answer its run records. */
  notePartialAnswer?: (traceId: string, text: string) => Promise<void>;
}

/** An answer an earlier attempt recorded (in the run record or the session), with what the run had spent. */
export interface RecordedRun {
  answer: string;
  model: string | null;
  tokens: number;
  /** As recorded; absent on runs recorded before the split and the money were kept. */
  inputTokens?: number;
  outputTokens?: number;
  amount?: number | null;
  /** As recorded in the run record; absent when only the session holds the answer. */
  artifacts?: Array<Record<string, unknown>>;
}

/** What recording the run needs besides the model's answer, should this call be the one that answers. */
export type RunToFinish = Omit<FinishRunInput, 'ctx' | 'seq' | 'answer' | 'model' | 'tokens' | 'spent' | 'answerStep'> & {
  /** Tokens the run spent before this call. */
  tokensBefore: number;
  /** Their split and money; absent when a workflow from before them scheduled the call (its run then records `tokens` only). */
  spentBefore?: Spend;
};

export interface CallModelInput {
  ctx: RunContext;
  seq: number;
  step: number;
  request: ChatRequest;
  /** The tenant's model provider the agent names; absent: the installation's default provider. */
  providerId?: string;
  /** Set when an answer ends the run: the call then records the run itself (see callModel). */
  finishIfAnswered?: RunToFinish;
}

export interface CallModelResult {
  result: ChatResult;
  /**
   * What the call cost at its model's price (unrounded); null when the model has none. Absent on
   * results recorded before calls priced themselves: the call then adds no money.
   */
  amount?: number | null;
  nextSeq: number;
  /** The run as recorded, when this call answered and recorded it. */
  finished?: FinishedRun;
}

/**
 * The call an earlier attempt answered, as the run it recorded says: its usage and money are the
 * recorded run's less what the run had spent before the call, and the run is recorded again with
 * what it recorded then. A recording without the split (only the session's, from before it was
 * kept) counts the call's tokens as output.
 */
function recordedCall(earlier: RecordedRun, run: RunToFinish) {
  const tokens = Math.max(0, earlier.tokens - run.tokensBefore);
  const before = run.spentBefore;
  if (!before || earlier.inputTokens === undefined || earlier.outputTokens === undefined) {
    return { usage: { promptTokens: 0, completionTokens: tokens, totalTokens: tokens, estimated: false }, amount: null, spent: undefined };
  }
  const spent: Spend = { inputTokens: earlier.inputTokens, outputTokens: earlier.outputTokens, amount: earlier.amount ?? null };
  const usage = {
    promptTokens: Math.max(0, spent.inputTokens - before.inputTokens),
    completionTokens: Math.max(0, spent.outputTokens - before.outputTokens),
    totalTokens: tokens,
    estimated: false,
  };
  const amount = spent.amount === null ? null : Math.max(0, spent.amount - (before.amount ?? 0));
  return { usage, amount, spent };
}

/** A model review answers in structured output; its findings, not its prose, are what is counted. */
const isModelReview = (run: RunToFinish | undefined) => run?.route.scenario === 'review' && run.route.usesModel;
const hasReviewReport = (artifacts: Array<Record<string, unknown>> | undefined) =>
  artifacts?.some((a) => a.type === 'review_report') ?? false;

/** The validated review as the run's artifact, its text made storable like every model output. */
function reviewReport(review: ReviewOutput): Record<string, unknown> {
  const findings = review.findings.map((f) => ({ ...f, file: storableText(f.file), message: storableText(f.message) }));
  return reviewArtifact(countFindings(findings), findings);
}

/** Activities that reach the language model. */
export function createLlmActivities({
  chats,
  runEvents,
  eventLog,
  messageIntervalMs = 50,
  recordFinishedRun,
  recordedRun,
  notePartialAnswer,
}: LlmActivityDeps) {
  /**
   * Records the run right here when the model has answered: a separate activity for it would cost
   * the reply another task round trip through the worker. Should recording fail, the workflow
   * records the run with the `finishRun` activity instead, so the model is never asked again.
   */
  async function finishHere(
    ctx: RunContext,
    seq: number,
    step: number,
    result: ChatResult,
    run: RunToFinish,
    spent: Spend | undefined,
  ): Promise<FinishedRun | undefined> {
    if (!recordFinishedRun) return undefined;
    const { tokensBefore, spentBefore: _, ...rest } = run;
    try {
      return await recordFinishedRun({
        ...rest,
        ctx,
        seq,
        answer: result.content,
        model: result.model,
        tokens: tokensBefore + result.usage.totalTokens,
        ...(spent ? { spent } : {}),
        answerStep: { step, confidence: stepConfidence(result.finishReason) },
      });
    } catch (err) {
      // A review's findings exist only here: the workflow's fallback recording would lose them, so
      // this call is retried instead (its next attempt reuses what this one recorded).
      if (hasReviewReport(run.artifacts)) {
        throw ApplicationFailure.create({ message: `recording the review failed: ${(err as Error).message}`, type: 'RecordingFailed' });
      }
      log.warn('recording the answered run failed; the workflow records it instead', {
        trace_id: ctx.traceId,
        error: (err as Error).message,
      });
      return undefined;
    }
  }

  /** A provider that is gone, or none configured, is final: another attempt cannot find it. */
  async function chatOf(tenantId: string, providerId: string | undefined) {
    let chat;
    try {
      chat = await chats.forProvider(tenantId, providerId);
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCodes.NOT_FOUND)
        throw ApplicationFailure.nonRetryable(`the agent's model provider ${providerId} no longer exists`, 'ModelRequestRejected');
      throw err;
    }
    if (!chat) throw ApplicationFailure.nonRetryable('no language model is configured', 'ModelRequestRejected');
    return chat;
  }

  return {
    /**
     * One model call. While streaming, the answer as it grows goes out as `message` events (the
     * step's first text whole, then what each adds as `delta`: see storedMessage; at most one per
     * messageIntervalMs, and always up to the final text). A 5xx,
     * 429, network failure or timeout is thrown for Temporal to retry; any other 4xx is not. An
     * answer (no tool calls) given `finishIfAnswered` is recorded as the run's result before the
     * call returns.
     */
    async callModel({ ctx, seq, step, request, providerId, finishIfAnswered }: CallModelInput): Promise<CallModelResult> {
      const { client: chat, connection } = await chatOf(ctx.tenantId, providerId);
      const price = connection.models.find((m) => m.id === request.model);
      const { attempt } = Context.current().info;
      // An earlier attempt that answered and began recording the run, then lost its worker before
      // reporting: its answer stands and the model is not asked again. Recording it once more
      // completes whatever that attempt had not written (every write is keyed by the run).
      const review = isModelReview(finishIfAnswered);
      const recorded = attempt > 1 && finishIfAnswered && recordedRun ? await recordedRun(ctx) : null;
      // A review recorded without its findings (the session only) is asked again rather than counted from prose.
      const earlier = recorded && (!review || hasReviewReport(recorded.artifacts)) ? recorded : null;
      if (earlier) {
        const { usage, amount, spent } = recordedCall(earlier, finishIfAnswered!);
        const result: ChatResult = {
          content: earlier.answer,
          toolCalls: [],
          usage,
          finishReason: 'stop',
          model: earlier.model ?? request.model,
        };
        const run = review
          ? { ...finishIfAnswered!, artifacts: earlier.artifacts!.filter((a) => a.type === 'review_report') }
          : finishIfAnswered!;
        const finished = await finishHere(ctx, seq, step, result, run, spent);
        return { result, amount, nextSeq: seq, ...(finished ? { finished } : {}) };
      }
      let next = seq;
      // Stream writes are chained so they land in order without holding up the model's stream.
      let writes: Promise<void> = Promise.resolve();
      const emit = (events: StreamEvent[]) => {
        // Awaited only once the model is done: a failed write must not surface before as an unhandled rejection.
        writes = startedEarly(
          writes.then(async () => {
            next = await runEvents.append(ctx.traceId, next, events, { announce: ctx.stream });
          }),
        );
      };
      if (recordsEvents(ctx)) emit([{ event: 'thinking', data: { phase: attempt > 1 ? 'model_retry' : 'model', step, attempt } }]);

      let lastSent = '';
      let lastAt = 0;
      const onText = (text: string) => {
        const now = Date.now();
        if (now - lastAt < messageIntervalMs) return;
        // A review streams JSON: the reader is shown the Markdown report inside it as it grows.
        const shown = storableText(review ? streamedReport(text) : text);
        if (shown === '' || shown === lastSent) return;
        lastAt = now;
        emit([{ event: 'message', data: storedMessage(lastSent, shown) }]);
        lastSent = shown;
      };
      const modelRequest: ChatRequest = review ? { ...request, responseFormat: REVIEW_RESPONSE_FORMAT } : request;

      let result: ChatResult;
      const { cancellationSignal } = Context.current();
      try {
        result = await whileHeartbeating(() =>
          chat.complete(modelRequest, {
            stream: ctx.stream,
            onText: ctx.stream ? onText : undefined,
            signal: cancellationSignal,
          }),
        );
      } catch (err) {
        await writes;
        if (cancellationSignal.aborted && lastSent !== '') await notePartialAnswer?.(ctx.traceId, lastSent);
        if (err instanceof ChatModelError) {
          throw ApplicationFailure.create({
            message: err.message,
            type: err.retryable ? 'ModelUnavailable' : 'ModelRequestRejected',
            nonRetryable: !err.retryable,
          });
        }
        throw err;
      }
      let run = finishIfAnswered;
      if (review && result.toolCalls.length === 0) {
        let output: ReviewOutput;
        try {
          output = parseReviewOutput(result.content);
        } catch (err) {
          if (!(err instanceof InvalidReviewOutputError)) throw err;
          await writes;
          // Retried like an unavailable model; after the last attempt the run fails with 30001.
          throw ApplicationFailure.create({ message: err.message, type: 'ModelOutputInvalid' });
        }
        result = { ...result, content: output.report };
        run = { ...finishIfAnswered!, artifacts: [reviewReport(output)] };
      }
      // The model's text is stored as it is shown (stream, session, run): what the store cannot hold goes.
      result = { ...result, content: storableText(result.content) };
      if (ctx.stream && result.content !== '' && result.content !== lastSent)
        emit([{ event: 'message', data: storedMessage(lastSent, result.content) }]);
      await writes;

      // A step that asks for tools is announced now (the run goes on); the answering step is
      // recorded with the run's other events when the run finishes.
      if (result.toolCalls.length > 0) {
        await eventLog.appendMany([
          agentStepEvent(
            ctx,
            step,
            `call_tools:${result.toolCalls.map((c) => c.name).join(',')}`,
            stepConfidence(result.finishReason),
            new Date(),
          ),
        ]);
      }
      const amount = callAmount(result.usage, price);
      const spent = run?.spentBefore ? addCall(run.spentBefore, result.usage, amount) : undefined;
      const finished = result.toolCalls.length === 0 && run ? await finishHere(ctx, next, step, result, run, spent) : undefined;
      return { result, amount, nextSeq: next, ...(finished ? { finished } : {}) };
    },
  };
}
