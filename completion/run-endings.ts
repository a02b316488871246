import { type EventRecord, newEvent } from '../common/events';
import { ErrorCodes } from '../common/errors';
import { turnMessageIds } from '../common/ids';
import type { Cost, StopReason } from '../common/schemas/completions';
import { NOTHING_SPENT, roundAmount, type Spend } from '../common/run-spend';
import { agentStepEvent } from './agent-step-event';
import { parseModelImport } from './import-items';
import { importArtifact, importEventData, reviewEventData } from './run-artifacts';
import type { KeyedStreamEvent } from '../stores/run-events';
import type { RunEnding } from './run-end-recorder';
import type { AnswerStep, Passage, RunContext, RunRoute } from './run-input';

/**
 * What each kind of run end records (answered, failed, cancelled, refused), as one RunEnding for
 * the end recorder. Pure: the activities build an ending here and hand it to the recorder.
 */

export interface FinishRunInput {
  ctx: RunContext;
  seq: number;
  question: string;
  answer: string;
  reference: Passage[];
  artifacts: Array<Record<string, unknown>>;
  model: string | null;
  offline: boolean;
  route: RunRoute;
  stopReason: StopReason;
  tokens: number;
  /** The split of the tokens, and the money; absent from code that predates them (the cost then has `tokens` only). */
  spent?: Spend;
  requestedAt: number;
  userId: string;
  /** Where the run's input came from (attachment names, or `question`). */
  sources: string[];
  answerStep: AnswerStep;
}

/** What a recorded run returns to the workflow: the artifacts as recorded, and the run's cost. */
export interface FinishedRun {
  artifacts: Array<Record<string, unknown>>;
  cost: Cost;
}

const costAt = (tokens: number, spent: Spend | undefined, requestedAt: number, at: Date): Cost => ({
  tokens,
  duration_ms: Math.max(0, at.getTime() - requestedAt),
  ...(spent
    ? {
        input_tokens: spent.inputTokens,
        output_tokens: spent.outputTokens,
        amount: spent.amount === null ? null : roundAmount(spent.amount),
      }
    : {}),
});

/** What the session's answer keeps of the cost, so that a retried recording repeats it exactly. */
const answeredBy = (model: string | null, cost: Cost) => ({
  model,
  tokens: cost.tokens,
  ...(cost.input_tokens !== undefined ? { inputTokens: cost.input_tokens, outputTokens: cost.output_tokens, amount: cost.amount } : {}),
});

const doneEvent = (ctx: Pick<RunContext, 'sessionId' | 'traceId'>, cost: Cost, stopReason: StopReason | 'failed') => ({
  key: 'end:done',
  event: 'done' as const,
  data: { session_id: ctx.sessionId, trace_id: ctx.traceId, cost, stop_reason: stopReason },
});

/** A failed run's stream ends with `error`, then `done` (`stop_reason: failed`). */
export const failedStream = (
  ctx: Pick<RunContext, 'sessionId' | 'traceId'>,
  error: { code: number; message: string },
  cost: Cost,
): KeyedStreamEvent[] => [{ key: 'end:error', event: 'error' as const, data: error }, doneEvent(ctx, cost, 'failed')];

/**
 * An answered run: the question and answer as the session's turn, `agent.step` and
 * `session.finished` (and `review.completed` / `import.completed` for those scenarios), its cost,
 * then the stream's last `message` and `done`.
 */
export function answeredRun(input: FinishRunInput, publicBaseUrl: string, at: Date): { ending: RunEnding; finished: FinishedRun } {
  const { ctx } = input;
  const cost = costAt(input.tokens, input.spent, input.requestedAt, at);
  const byModel = input.route.usesModel && input.model !== null;
  let artifacts = input.artifacts;
  if (byModel) {
    // Only a review the model gave as validated structured output is counted (see callModel);
    // without one (a run stopped by its token budget) no review is announced.
    if (input.route.scenario === 'review') artifacts = artifacts.filter((a) => a.type === 'review_report');
    if (input.route.scenario === 'import') artifacts = [importArtifact(parseModelImport(input.answer), input.sources)];
  }
  const [, answerId] = turnMessageIds(ctx.traceId, 2);
  const reportUrl = `${publicBaseUrl}/v1/combo/sessions/${ctx.sessionId}/messages/${answerId}`;
  artifacts = artifacts.map((a) => (a.type === 'review_report' ? { ...a, report_url: reportUrl } : a));

  const runIds = { session_id: ctx.sessionId, trace_id: ctx.traceId };
  const events: EventRecord[] = [
    agentStepEvent(ctx, input.answerStep.step, byModel ? 'answer' : `answer:${input.route.processor}`, input.answerStep.confidence, at),
    newEvent(
      'session.finished',
      ctx.tenantId,
      ctx.traceId,
      { ...runIds, cost, artifacts, agent_id: ctx.agentId, route: input.route.text, stop_reason: input.stopReason },
      at,
    ),
  ];
  for (const artifact of artifacts) {
    if (artifact.type === 'review_report')
      events.push(
        newEvent(
          'review.completed',
          ctx.tenantId,
          ctx.traceId,
          { ...reviewEventData(artifact, input.question, reportUrl, cost), ...runIds },
          at,
        ),
      );
    if (artifact.type === 'import')
      events.push(newEvent('import.completed', ctx.tenantId, ctx.traceId, { ...importEventData(artifact), ...runIds }, at));
  }
  const ending: RunEnding = {
    ctx,
    seq: input.seq,
    at,
    cost,
    record: {
      status: 'completed',
      result: { answer: input.answer, reference: input.reference, cost, model: input.model, stopReason: input.stopReason, artifacts },
    },
    turn: [
      { role: 'user', content: input.question, metadata: {} },
      {
        role: 'assistant',
        content: input.answer,
        metadata: { route: input.route.text },
        answeredBy: answeredBy(input.model, cost),
      },
    ],
    events,
    // Every answered run counts, a run of no model call too.
    queueCost: true,
    stream: [
      { key: 'end:message', event: 'message', data: { answer: input.answer, reference: input.reference } },
      doneEvent(ctx, cost, input.stopReason),
    ],
  };
  return { ending, finished: { artifacts, cost } };
}

export interface FailRunInput {
  ctx: RunContext;
  seq: number;
  question: string;
  code: number;
  message: string;
  tokens: number;
  spent?: Spend;
  requestedAt: number;
}

/** A failed run: its error, the tokens it spent, `run.failed`, and on the stream `error` then `done`. */
export function failedRun(input: FailRunInput, at: Date): RunEnding {
  const { ctx } = input;
  const cost = costAt(input.tokens, input.spent, input.requestedAt, at);
  const error = { code: input.code, message: input.message };
  return {
    ctx,
    seq: input.seq,
    at,
    cost,
    record: { status: 'failed', error },
    events: [
      newEvent(
        'run.failed',
        ctx.tenantId,
        ctx.traceId,
        { trace_id: ctx.traceId, session_id: ctx.sessionId, agent_id: ctx.agentId, code: error.code, message: error.message, cost },
        at,
      ),
    ],
    // A run that ended without a model call spent nothing worth a record.
    queueCost: cost.tokens > 0,
    stream: failedStream(ctx, error, cost),
  };
}

export interface CancelRunInput {
  ctx: RunContext;
  seq: number;
  question: string;
  /** What the run had answered by then. */
  answer: string;
  model: string | null;
  tokens: number;
  spent?: Spend;
  requestedAt: number;
  /** The run never started (it was queued): no turn is recorded. */
  beforeStart: boolean;
}

/**
 * A cancelled run: what it had answered by then as its answer and as the session's turn marked
 * `canceled` (not for a run cancelled before it started), the tokens it spent, `run.canceled`, and
 * on the stream the last `message` and `done`.
 */
export function canceledRun(input: CancelRunInput, at: Date): RunEnding {
  const { ctx, answer } = input;
  const cost = costAt(input.tokens, input.spent, input.requestedAt, at);
  return {
    ctx,
    seq: input.seq,
    at,
    cost,
    record: { status: 'canceled', result: { answer, cost, model: input.model, artifacts: [] } },
    ...(input.beforeStart
      ? {}
      : {
          turn: [
            { role: 'user' as const, content: input.question, metadata: {} },
            {
              role: 'assistant' as const,
              content: answer,
              metadata: { canceled: 'true' },
              answeredBy: answeredBy(input.model, cost),
            },
          ],
        }),
    events: [
      newEvent(
        'run.canceled',
        ctx.tenantId,
        ctx.traceId,
        { trace_id: ctx.traceId, session_id: ctx.sessionId, agent_id: ctx.agentId, cost },
        at,
      ),
    ],
    queueCost: cost.tokens > 0,
    stream: [{ key: 'end:message', event: 'message', data: { answer, reference: [] } }, doneEvent(ctx, cost, 'canceled')],
  };
}

/**
 * A run its session refused (`reject`: an earlier run was going) after its request stopped
 * waiting: failed with 10005, its stream ended; no event, no cost.
 */
export function rejectedRun({ ctx, seq, busyWith }: { ctx: RunContext; seq: number; busyWith: string }, at: Date): RunEnding {
  const error = { code: ErrorCodes.CONFLICT, message: `session ${ctx.sessionId} already had a completion running (${busyWith})` };
  const cost = costAt(0, NOTHING_SPENT, 0, new Date(0));
  return {
    ctx,
    seq,
    at,
    cost,
    record: { status: 'failed', error },
    events: [],
    queueCost: false,
    stream: failedStream(ctx, error, cost),
  };
}
