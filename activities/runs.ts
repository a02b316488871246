import { ApplicationFailure } from '@temporalio/activity';
import { AppError, ErrorCodes } from '../common/errors';
import type { ChatMessage } from '../common/chat-model';
import { NOTHING_SPENT } from '../common/run-spend';
import type { Cost } from '../common/schemas/completions';
import { answerWithoutModel, type ProcessorAnswer } from '../completion/answer-without-model';
import { historyMessages } from '../completion/plan-run';
import { createRunEndRecorder, type RunEndStores } from '../completion/run-end-recorder';
import {
  answeredRun,
  canceledRun,
  type CancelRunInput,
  failedRun,
  type FailRunInput,
  type FinishedRun,
  type FinishRunInput,
  rejectedRun,
} from '../completion/run-endings';
import type { AttachmentText, Passage, RunContext, RunRoute } from '../completion/run-input';
import type { CompletionRunStore } from '../stores/completion-runs';
import type { FileStore } from '../stores/files';
import type { SessionStore } from '../stores/sessions';

export interface RunActivityDeps extends Omit<RunEndStores, 'sessions' | 'runs'> {
  sessions: SessionStore;
  runs: CompletionRunStore;
  files: FileStore;
  publicBaseUrl: string;
}

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

export interface ProcessedRun extends ProcessorAnswer {
  /** The run as recorded, when `finish` was given. */
  finished?: FinishedRun;
}

/** Input a processor cannot work on fails the run for good: a retry cannot help. */
function answerOrRefuse(input: ProcessInput): ProcessorAnswer {
  try {
    return answerWithoutModel(input);
  } catch (err) {
    if (err instanceof AppError && err.code === ErrorCodes.INVALID_PARAMETERS)
      throw ApplicationFailure.nonRetryable(err.message, 'InvalidInput');
    throw err;
  }
}

/** Activities that record a completion's result in MongoDB (through the run end recorder), and the processors that need no model. */
export function createRunActivities(deps: RunActivityDeps) {
  const recorder = createRunEndRecorder(deps);

  /** Records an answered run (see answeredRun); every write is keyed by the trace id, so a retry records nothing twice. */
  async function recordRun(input: FinishRunInput): Promise<FinishedRun> {
    const { ending, finished } = answeredRun(input, deps.publicBaseUrl, new Date());
    await recorder.recordEnd(ending);
    return finished;
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
      const processed = answerOrRefuse(input);
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
        spent: NOTHING_SPENT,
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
    async failRun(input: FailRunInput): Promise<void> {
      await recorder.recordEnd(failedRun(input, new Date()));
    },

    /**
     * Records a cancelled run: what it had answered by then (the text a cancelled model call had
     * streamed, else the last finished step's) as its answer and as the session's turn marked
     * `canceled` (not for a run cancelled before it started), the tokens it spent, `run.canceled`,
     * and on the stream the last `message` and `done`. A run that had already ended stays as it was.
     */
    async recordCanceledRun(
      input: Omit<CancelRunInput, 'answer'> & {
        /** The last finished model step's text. */
        answerSoFar: string;
      },
    ): Promise<{ answer: string; cost: Cost }> {
      const { answerSoFar, ...rest } = input;
      const answer = input.beforeStart ? '' : ((await deps.runs.partialAnswer(input.ctx.traceId)) ?? answerSoFar);
      const ending = canceledRun({ ...rest, answer }, new Date());
      await recorder.recordEnd(ending);
      return { answer, cost: ending.cost };
    },

    /**
     * A run its session refused (`reject`: an earlier run was going) after its request stopped
     * waiting for the answer: failed with 10005, its stream ended. A request still waiting answers
     * 10005 itself and removes the record.
     */
    async recordRejectedRun(input: { ctx: RunContext; seq: number; busyWith: string }): Promise<void> {
      await recorder.recordEnd(rejectedRun(input, new Date()));
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
