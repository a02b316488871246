import { type Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError, conflict, ErrorCodes } from '../common/errors';
import type { CompletionBody, CompletionReply, RunAccepted } from '../common/schemas/completions';
import { TraceId } from '../common/search-attributes';
import { type PreparationDeps, prepareCompletionInput } from './prepare-completion';
import { type CompletionInput, RUN_FAILURE_TYPE } from '../completion/run-input';
import type { CompletionRunStore } from '../stores/completion-runs';
import type { CompletionOutcome } from '../workflows/completion';
import { completionWorkflowId, startCompletion } from './workflow-starts';

export interface StartedRun {
  input: CompletionInput;
  workflowId: string;
  runId: string;
}

export interface CompletionCommandDeps extends PreparationDeps {
  temporal: Client;
  completionRuns: CompletionRunStore;
}

/** How long a request waits for a session's previous run to close once that run has answered. */
const CLOSING_RUN_WAIT_MS = 5_000;
const KNOWN_CODES = new Set<number>(Object.values(ErrorCodes));

/** The error a failed run ended with, as the spec's code (30001 model, 30002 tool timeout, ...). */
function runError(err: unknown): AppError {
  if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.type === RUN_FAILURE_TYPE) {
    const code = (err.cause.details?.[0] as { code?: number } | undefined)?.code;
    if (code !== undefined && code !== 0 && KNOWN_CODES.has(code)) return new AppError(code as AppError['code'], err.cause.message);
  }
  return new AppError(ErrorCodes.INTERNAL, 'the completion failed inside the service');
}

/** The 202 reply of a run that outlived the request's wait: where to follow it. */
export const acceptedRun = (run: StartedRun): RunAccepted => ({
  trace_id: run.input.traceId,
  session_id: run.input.sessionId,
  status: 'running',
  links: { self: `/v1/combo/completions/${run.input.traceId}`, events: `/v1/combo/completions/${run.input.traceId}/events` },
});

export function createCompletionCommands(deps: CompletionCommandDeps) {
  const { temporal, config, completionRuns } = deps;
  const taskQueue = config.TEMPORAL_TASK_QUEUE;

  /**
   * A client that got its answer (or a stream's `done`) may ask the next question while the previous
   * workflow is still closing. When the session's running workflow has already recorded its result,
   * wait for it to close instead of refusing; a run still working is refused (10005).
   */
  async function previousRunHasAnswered(tenantId: string, sessionId: string): Promise<boolean> {
    const handle = temporal.workflow.getHandle(completionWorkflowId(sessionId));
    const description = await handle.describe().catch(() => null);
    if (!description) return false;
    // Closed since the start was refused: try again.
    if (description.status.name !== 'RUNNING') return true;
    const previousTrace = description.typedSearchAttributes.get(TraceId);
    if (!previousTrace) return false;
    const previous = await completionRuns.get(tenantId, previousTrace).catch(() => null);
    if (!previous || previous.status === 'running') return false;
    return Promise.race([
      handle.result().then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), CLOSING_RUN_WAIT_MS).unref()),
    ]);
  }

  return {
    /**
     * Checks a completion request, builds the workflow's input and starts it. Everything the run
     * reads of the agent, session and skills is read here, once; a second completion on a session
     * whose run is still going is refused with 10005.
     */
    async start(tenantId: string, agentId: string, body: CompletionBody, traceId: string): Promise<StartedRun> {
      const input = await prepareCompletionInput(deps, {
        traceId,
        tenantId,
        agentId,
        sessionId: body.session_id,
        question: body.question,
        stream: body.stream,
        route: body.route,
        attachments: body.attachments,
        contextIds: body.context_ids,
      });
      const sessionId = input.sessionId;
      // The run's record and its workflow start together; a refused start removes the record.
      let [, started] = await Promise.all([
        completionRuns.start({
          traceId,
          tenantId,
          agentId,
          sessionId,
          route: input.route.text,
          stream: body.stream,
          offline: input.offline,
        }),
        startCompletion(temporal, taskQueue, input),
      ]);
      if (!started && (await previousRunHasAnswered(tenantId, sessionId))) {
        started = await startCompletion(temporal, taskQueue, input);
      }
      if (!started) {
        await completionRuns.discard(traceId);
        throw conflict(`session ${sessionId} already has a completion running; wait for it to finish`, {
          session_id: sessionId,
          workflow_id: completionWorkflowId(sessionId),
        });
      }
      return { input, ...started };
    },

    /**
     * Waits for the run's workflow, at most COMPLETION_REPLY_WAIT_MS, and shapes its outcome as the
     * reply; null when the run is still going then (it goes on: the client follows it by trace id).
     */
    async awaitReply(run: StartedRun): Promise<CompletionReply | null> {
      let outcome: CompletionOutcome | null;
      let timer: NodeJS.Timeout | undefined;
      try {
        outcome = await Promise.race([
          temporal.workflow.getHandle<(input: CompletionInput) => Promise<CompletionOutcome>>(run.workflowId, run.runId).result(),
          new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), config.COMPLETION_REPLY_WAIT_MS))),
        ]);
      } catch (err) {
        throw runError(err);
      } finally {
        clearTimeout(timer);
      }
      if (outcome === null) return null;
      return {
        session_id: run.input.sessionId,
        answer: outcome.answer,
        reference: outcome.reference,
        trace_id: run.input.traceId,
        cost: outcome.cost,
        route: run.input.route.text,
        model: outcome.model,
        offline: run.input.offline,
        stop_reason: outcome.stopReason,
        artifacts: outcome.artifacts,
      };
    },

    /** Settles once the run's workflow has ended, however it ended. */
    async ended(workflowId: string, runId: string): Promise<void> {
      await temporal.workflow
        .getHandle(workflowId, runId)
        .result()
        .catch(() => undefined);
    },
  };
}
