import { ApplicationFailure } from '@temporalio/activity';
import { ErrorCodes } from '../common/errors';
import type { StopReason } from '../common/schemas/completions';
import { composeOfflineAnswer } from '../completion/offline-answer';
import { describeImport, importArtifact, importEventData, reviewArtifact, reviewEventData } from '../completion/run-artifacts';
import { NotADiffError, reviewDiff } from '../completion/review-rules';
import { NotImportableError, parseImport, parseModelImport } from '../completion/import-items';
import { EXTRACTIVE_PASSAGES } from '../completion/route-catalog';
import { type AnswerStep, type AttachmentText, type Passage, recordsEvents, type RunContext, type RunRoute } from '../completion/run-input';
import type { ChatMessage } from '../common/chat-model';
import { historyMessages } from '../completion/plan-run';
import { agentStepEvent } from './agent-step-event';
import type { CompletionRunStore } from '../stores/completion-runs';
import type { CostStore } from '../stores/costs';
import { type EventLog, newEvent } from '../stores/event-log';
import type { FileStore } from '../stores/files';
import type { RunEventStore } from '../stores/run-events';
import { type SessionStore, turnMessageIds } from '../stores/sessions';

export interface RunActivityDeps {
  sessions: SessionStore;
  runs: CompletionRunStore;
  runEvents: RunEventStore;
  eventLog: EventLog;
  costs: CostStore;
  files: FileStore;
  publicBaseUrl: string;
}

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
  requestedAt: number;
  userId: string;
  /** Where the run's input came from (attachment names, or `question`). */
  sources: string[];
  answerStep: AnswerStep;
}

/** What a recorded run returns to the workflow: the artifacts as recorded, and the run's cost. */
export interface FinishedRun {
  artifacts: Array<Record<string, unknown>>;
  cost: { tokens: number; duration_ms: number };
}

const invalidInput = (message: string) => ApplicationFailure.nonRetryable(message, 'InvalidInput');

/** The text a processor works on: the question, then each attachment. */
const inputText = (question: string, attachments: AttachmentText[]) => [question, ...attachments.map((a) => a.text)].join('\n\n');

export interface ProcessInput {
  ctx: RunContext;
  route: RunRoute;
  question: string;
  passages: Passage[];
  attachments: AttachmentText[];
  offline: boolean;
  /** Set when the answer ends the run: it is then recorded in the same activity. */
  finish?: { seq: number; requestedAt: number; userId: string; sources: string[] };
}

export interface ProcessedRun {
  answer: string;
  reference: Passage[];
  artifacts: Array<Record<string, unknown>>;
  /** The run as recorded, when `finish` was given. */
  finished?: FinishedRun;
}

/** The answer of a processor that needs no model: rule-based review, structured import, or quoted passages. */
function answerWithoutModel({ route, question, passages, attachments }: ProcessInput): ProcessedRun {
  if (route.scenario === 'review') {
    try {
      const review = reviewDiff(inputText(question, attachments), { mode: route.mode === 'security' ? 'security' : 'default' });
      return { answer: review.report, reference: [] as Passage[], artifacts: [reviewArtifact(review.issues_found, review.findings)] };
    } catch (err) {
      if (err instanceof NotADiffError) throw invalidInput(`review: ${err.message}`);
      throw err;
    }
  }
  if (route.scenario === 'import') {
    // Attached files are what is imported (the question then only asks for it); else the question.
    const sources =
      attachments.length > 0 ? attachments.map((a) => ({ name: a.name, text: a.text })) : [{ name: 'question', text: question }];
    const parsed = sources.map((source) => {
      try {
        return parseImport(source.text, { mode: route.mode === 'bugs' ? 'bugs' : 'requirements' });
      } catch (err) {
        if (err instanceof NotImportableError) throw invalidInput(`import: ${source.name}: ${err.message}`);
        throw err;
      }
    });
    const merged = {
      source_format: [...new Set(parsed.map((p) => p.source_format))].join(', '),
      items: parsed.flatMap((p) => p.items),
      errors: parsed.flatMap((p, i) =>
        p.errors.map((e) => (sources.length > 1 ? { ...e, message: `${sources[i]!.name}: ${e.message}` } : e)),
      ),
      count: parsed.reduce((sum, p) => sum + p.count, 0),
    };
    return {
      answer: describeImport(merged),
      reference: [] as Passage[],
      artifacts: [
        importArtifact(
          merged,
          sources.map((s) => s.name),
        ),
      ],
    };
  }
  const composed = composeOfflineAnswer(question, passages, { maxPassages: EXTRACTIVE_PASSAGES[route.mode] ?? 3 });
  return { answer: composed.answer, reference: composed.reference, artifacts: [] as Array<Record<string, unknown>> };
}

/** Activities that record a completion's result in MongoDB, and the processors that need no model. */
export function createRunActivities(deps: RunActivityDeps) {
  /** A failed run's stream ends with `error`, then `done` (`stop_reason: failed`). */
  const endStreamFailed = async (ctx: RunContext, seq: number, error: { code: number; message: string }, cost: FinishedRun['cost']) => {
    if (!recordsEvents(ctx)) return;
    await deps.runEvents.append(ctx.traceId, seq, [
      { event: 'error', data: error },
      { event: 'done', data: { session_id: ctx.sessionId, trace_id: ctx.traceId, cost, stop_reason: 'failed' } },
    ]);
  };

  /** The run's cost for the tenant's totals; a run that ended without a model call spent nothing worth a record. */
  const queueRunCost = (ctx: RunContext, cost: FinishedRun['cost'], at: Date, { always = false } = {}) =>
    always || cost.tokens > 0
      ? deps.costs.enqueueRunCost({
          tenantId: ctx.tenantId,
          traceId: ctx.traceId,
          agentId: ctx.agentId,
          tokens: cost.tokens,
          durationMs: cost.duration_ms,
          at,
        })
      : undefined;

  /**
   * Records a finished run: the question and answer as session messages, the run's events
   * (`session.finished`, and `review.completed` / `import.completed` for those scenarios), its
   * cost, then the stream's last `message` and `done`. Every write is keyed by the trace id, so
   * a retry records nothing twice.
   */
  async function recordRun(input: FinishRunInput): Promise<FinishedRun> {
    const { ctx } = input;
    const at = new Date();
    const cost = { tokens: input.tokens, duration_ms: Math.max(0, at.getTime() - input.requestedAt) };
    let artifacts = input.artifacts;
    if (input.route.usesModel && input.model !== null) {
      // Only a review the model gave as validated structured output is counted (see callModel);
      // without one (a run stopped by its token budget) no review is announced.
      if (input.route.scenario === 'review') artifacts = artifacts.filter((a) => a.type === 'review_report');
      if (input.route.scenario === 'import') artifacts = [importArtifact(parseModelImport(input.answer), input.sources)];
    }

    const [, answerId] = turnMessageIds(ctx.traceId, 2);
    const reportUrl = `${deps.publicBaseUrl}/v1/combo/sessions/${ctx.sessionId}/messages/${answerId}`;
    artifacts = artifacts.map((a) => (a.type === 'review_report' ? { ...a, report_url: reportUrl } : a));

    const answerAction = input.route.usesModel && input.model !== null ? 'answer' : `answer:${input.route.processor}`;
    const events = [
      agentStepEvent(ctx, input.answerStep.step, answerAction, input.answerStep.confidence, at),
      newEvent(
        'session.finished',
        ctx.tenantId,
        ctx.traceId,
        {
          session_id: ctx.sessionId,
          cost,
          artifacts,
          trace_id: ctx.traceId,
          agent_id: ctx.agentId,
          route: input.route.text,
          stop_reason: input.stopReason,
        },
        at,
      ),
    ];
    for (const artifact of artifacts) {
      const runIds = { session_id: ctx.sessionId, trace_id: ctx.traceId };
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
    // Independent writes, side by side: this is on every completion's path to its reply.
    await Promise.all([
      deps.sessions.recordTurn(
        ctx.tenantId,
        ctx.sessionId,
        ctx.traceId,
        [
          { role: 'user', content: input.question, metadata: {} },
          {
            role: 'assistant',
            content: input.answer,
            metadata: { route: input.route.text },
            answeredBy: { model: input.model, tokens: cost.tokens },
          },
        ],
        at,
      ),
      deps.eventLog.appendMany(events),
      queueRunCost(ctx, cost, at, { always: true }),
      deps.runs.complete(
        ctx.traceId,
        { answer: input.answer, reference: input.reference, cost, model: input.model, stopReason: input.stopReason, artifacts },
        at,
        ctx.runId,
      ),
    ]);
    if (recordsEvents(ctx)) {
      await deps.runEvents.append(ctx.traceId, input.seq, [
        { event: 'message', data: { answer: input.answer, reference: input.reference } },
        { event: 'done', data: { session_id: ctx.sessionId, trace_id: ctx.traceId, cost, stop_reason: input.stopReason } },
      ]);
    }
    return { artifacts, cost };
  }

  return {
    async readAttachments({
      tenantId,
      fileIds,
      maxChars,
    }: {
      tenantId: string;
      fileIds: string[];
      maxChars: number;
    }): Promise<AttachmentText[]> {
      const files = await deps.files.getTexts(tenantId, fileIds);
      const share = Math.floor(maxChars / Math.max(1, files.length));
      return files.map((f) => ({ file_id: f.file_id, name: f.name, text: f.text.slice(0, share), truncated: f.text.length > share }));
    },

    /**
     * The processors that answer without a language model: extractive quoting, rule-based review,
     * structured import. Given `finish`, the answer is recorded as the run's result here too, so the
     * run needs no second local activity (each costs the reply a round trip through the worker).
     */
    async processWithoutModel(input: ProcessInput): Promise<ProcessedRun> {
      const processed = answerWithoutModel(input);
      if (!input.finish) return processed;
      const { finish, ctx, route, question, offline } = input;
      const finished = await recordRun({
        ctx,
        seq: finish.seq,
        question,
        answer: processed.answer,
        reference: processed.reference,
        artifacts: processed.artifacts,
        model: null,
        offline,
        route,
        stopReason: 'answered',
        tokens: 0,
        requestedAt: finish.requestedAt,
        userId: finish.userId,
        sources: finish.sources,
        answerStep: { step: 1, confidence: 1 },
      });
      return { ...processed, artifacts: finished.artifacts, finished };
    },

    /**
     * Records a finished run: the question and answer as session messages, the run's events, its
     * cost, then the stream's last `message` and `done` (see recordRun).
     */
    finishRun: recordRun,

    /** Records a failed run: its error, the tokens it spent, `run.failed`, and on the stream `error` then `done`. */
    async failRun(input: {
      ctx: RunContext;
      seq: number;
      question: string;
      code: number;
      message: string;
      tokens: number;
      requestedAt: number;
    }): Promise<void> {
      const { ctx } = input;
      const at = new Date();
      const cost = { tokens: input.tokens, duration_ms: Math.max(0, at.getTime() - input.requestedAt) };
      const error = { code: input.code, message: input.message };
      await Promise.all([
        deps.runs.fail(ctx.traceId, error, cost, at, ctx.runId),
        deps.eventLog.appendMany([
          newEvent(
            'run.failed',
            ctx.tenantId,
            ctx.traceId,
            { trace_id: ctx.traceId, session_id: ctx.sessionId, agent_id: ctx.agentId, code: error.code, message: error.message, cost },
            at,
          ),
        ]),
        queueRunCost(ctx, cost, at),
      ]);
      await endStreamFailed(ctx, input.seq, error, cost);
    },

    /**
     * Records a cancelled run: what it had answered by then (the text a cancelled model call had
     * streamed, else the last finished step's) as its answer and as the session's turn marked
     * `canceled` (not for a run cancelled before it started), the tokens it spent, `run.canceled`,
     * and on the stream the last `message` and `done`. A run that had already ended stays as it was.
     */
    async recordCanceledRun(input: {
      ctx: RunContext;
      seq: number;
      question: string;
      /** The last finished model step's text. */
      answerSoFar: string;
      model: string | null;
      tokens: number;
      requestedAt: number;
      /** The run never started (it was queued): no turn is recorded. */
      beforeStart: boolean;
    }): Promise<{ answer: string; cost: { tokens: number; duration_ms: number } }> {
      const { ctx } = input;
      const at = new Date();
      const cost = { tokens: input.tokens, duration_ms: Math.max(0, at.getTime() - input.requestedAt) };
      const answer = input.beforeStart ? '' : ((await deps.runs.partialAnswer(ctx.traceId)) ?? input.answerSoFar);
      const ended = await deps.runs.cancel(ctx.traceId, { answer, cost, model: input.model, artifacts: [] }, at, ctx.runId);
      if (!ended) return { answer, cost };
      await Promise.all([
        input.beforeStart
          ? undefined
          : deps.sessions.recordTurn(
              ctx.tenantId,
              ctx.sessionId,
              ctx.traceId,
              [
                { role: 'user', content: input.question, metadata: {} },
                {
                  role: 'assistant',
                  content: answer,
                  metadata: { canceled: 'true' },
                  answeredBy: { model: input.model, tokens: cost.tokens },
                },
              ],
              at,
            ),
        deps.eventLog.appendMany([
          newEvent(
            'run.canceled',
            ctx.tenantId,
            ctx.traceId,
            { trace_id: ctx.traceId, session_id: ctx.sessionId, agent_id: ctx.agentId, cost },
            at,
          ),
        ]),
        queueRunCost(ctx, cost, at),
      ]);
      if (recordsEvents(ctx)) {
        await deps.runEvents.append(ctx.traceId, input.seq, [
          { event: 'message', data: { answer, reference: [] } },
          { event: 'done', data: { session_id: ctx.sessionId, trace_id: ctx.traceId, cost, stop_reason: 'canceled' } },
        ]);
      }
      return { answer, cost };
    },

    /**
     * A run its session refused (`reject`: an earlier run was going) after its request stopped
     * waiting for the answer: failed with 10005, its stream ended. A request still waiting answers
     * 10005 itself and removes the record.
     */
    async recordRejectedRun({ ctx, seq, busyWith }: { ctx: RunContext; seq: number; busyWith: string }): Promise<void> {
      const at = new Date();
      const error = { code: ErrorCodes.CONFLICT, message: `session ${ctx.sessionId} already had a completion running (${busyWith})` };
      const cost = { tokens: 0, duration_ms: 0 };
      await deps.runs.fail(ctx.traceId, error, cost, at);
      await endStreamFailed(ctx, seq, error, cost);
    },

    /**
     * A run that waited behind earlier runs of its session starts: it is marked running, and the
     * session's history is read again (it now holds the earlier runs' turns).
     */
    async beginQueuedRun(input: {
      ctx: RunContext;
      runId: string;
      maxMessages: number;
      maxChars: number;
    }): Promise<{ history: ChatMessage[] }> {
      const { ctx } = input;
      const [turns] = await Promise.all([
        deps.sessions.recentTurns(ctx.tenantId, ctx.sessionId, { maxMessages: input.maxMessages, maxChars: input.maxChars }),
        deps.runs.started(ctx.traceId, input.runId, new Date()),
      ]);
      return { history: historyMessages(turns) };
    },

    /** `rollback`: a cancelled run's turn leaves the session's messages and the history later runs read. */
    async removeRunTurn({ tenantId, sessionId, traceId }: { tenantId: string; sessionId: string; traceId: string }): Promise<void> {
      await deps.sessions.removeTurn(tenantId, sessionId, traceId);
    },
  };
}
