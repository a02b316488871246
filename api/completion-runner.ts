import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { AppError, conflict, ErrorCodes } from '../common/errors';
import type { CompletionBody, CompletionReply, RunAccepted } from '../common/schemas/completions';
import { TraceId } from '../common/search-attributes';
import { completionWorkflowId, startCompletion } from '../common/workflow-starts';
import { prepareCompletionInput } from '../completion/prepare-input';
import { type CompletionInput, RUN_FAILURE_TYPE } from '../completion/run-input';
import type { CompletionOutcome } from '../workflows/completion';
import type { Principal } from './auth';
import type { Services } from './services';

export interface StartedRun {
  input: CompletionInput;
  workflowId: string;
  runId: string;
}

/**
 * Checks a completion request, builds the workflow's input and starts it. Everything the run
 * reads of the agent, session and skills is read here, once; a second completion on a session
 * whose run is still going is refused with 10005.
 */
export async function startRun(services: Services, principal: Principal, agentId: string, body: CompletionBody, traceId: string): Promise<StartedRun> {
  const { config } = services;
  const tenantId = principal.tenantId;
  const input = await prepareCompletionInput(services, {
    traceId, tenantId, agentId, sessionId: body.session_id, question: body.question, stream: body.stream,
    route: body.route, attachments: body.attachments, contextIds: body.context_ids,
  });
  const sessionId = input.sessionId;

  // The run's record and its workflow start together; a refused start removes the record.
  let [, started] = await Promise.all([
    services.completionRuns.start({ traceId, tenantId, agentId, sessionId, route: input.route.text, stream: body.stream, offline: input.offline }),
    startCompletion(services.temporal, config.TEMPORAL_TASK_QUEUE, input),
  ]);
  if (!started && (await previousRunHasAnswered(services, tenantId, sessionId))) {
    started = await startCompletion(services.temporal, config.TEMPORAL_TASK_QUEUE, input);
  }
  if (!started) {
    await services.completionRuns.discard(traceId);
    throw conflict(`session ${sessionId} already has a completion running; wait for it to finish`, {
      session_id: sessionId,
      workflow_id: completionWorkflowId(sessionId),
    });
  }
  return { input, ...started };
}

/** How long a request waits for a session's previous run to close once that run has answered. */
const CLOSING_RUN_WAIT_MS = 5_000;

/**
 * A client that got its answer (or a stream's `done`) may ask the next question while the previous
 * workflow is still closing. When the session's running workflow has already recorded its result,
 * wait for it to close instead of refusing; a run still working is refused (10005).
 */
async function previousRunHasAnswered(services: Services, tenantId: string, sessionId: string): Promise<boolean> {
  const handle = services.temporal.workflow.getHandle(completionWorkflowId(sessionId));
  const description = await handle.describe().catch(() => null);
  if (!description) return false;
  // Closed since the start was refused: try again.
  if (description.status.name !== 'RUNNING') return true;
  const previousTrace = description.typedSearchAttributes.get(TraceId);
  if (!previousTrace) return false;
  const previous = await services.completionRuns.get(tenantId, previousTrace).catch(() => null);
  if (!previous || previous.status === 'running') return false;
  const closed = await Promise.race([
    handle.result().then(() => true, () => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), CLOSING_RUN_WAIT_MS).unref()),
  ]);
  return closed;
}

/** The error a failed run ended with, as the spec's code (30001 model, 30002 tool timeout, ...). */
export function runError(err: unknown): AppError {
  if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.type === RUN_FAILURE_TYPE) {
    const code = (err.cause.details?.[0] as { code?: number } | undefined)?.code;
    if (code !== undefined && code !== 0 && KNOWN_CODES.has(code)) return new AppError(code as AppError['code'], err.cause.message);
  }
  return new AppError(ErrorCodes.INTERNAL, 'the completion failed inside the service');
}
const KNOWN_CODES = new Set<number>(Object.values(ErrorCodes));

/** The 202 reply of a run that outlived the request's wait: where to follow it. */
export const acceptedRun = (run: StartedRun): RunAccepted => ({
  trace_id: run.input.traceId,
  session_id: run.input.sessionId,
  status: 'running',
  links: { self: `/v1/combo/completions/${run.input.traceId}`, events: `/v1/combo/completions/${run.input.traceId}/events` },
});

/**
 * Waits for the run's workflow, at most COMPLETION_REPLY_WAIT_MS, and shapes its outcome as the
 * reply; null when the run is still going then (it goes on: the client follows it by trace id).
 */
export async function awaitReply(services: Services, run: StartedRun): Promise<CompletionReply | null> {
  let outcome: CompletionOutcome | null;
  let timer: NodeJS.Timeout | undefined;
  try {
    outcome = await Promise.race([
      services.temporal.workflow.getHandle<(input: CompletionInput) => Promise<CompletionOutcome>>(run.workflowId, run.runId).result(),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), services.config.COMPLETION_REPLY_WAIT_MS))),
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
}
