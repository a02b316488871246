import { createHash } from 'node:crypto';
import {
  type Client,
  isGrpcDeadlineError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { canonicalJson } from '../common/canonical-json';
import { AppError, conflict, ErrorCodes, invalid } from '../common/errors';
import type { Logger } from '../common/logger';
import type { MultitaskStrategy } from '../common/schemas/agents';
import type { CompletionBody, CompletionReply, CompletionRun, RunAccepted, RunKind, RunListQuery } from '../common/schemas/completions';
import { type PreparationDeps, prepareCompletionInput } from '../completion/prepare-input';
import { type CompletionInput, RUN_FAILURE_TYPE } from '../completion/run-input';
import { acceptedEvent, createRunStartRecorder, type FirstEvents } from '../completion/run-start-recorder';
import type { SessionStore } from '../stores/sessions';
import type { SessionTurnStore } from '../stores/session-turns';
import { type CompletionRunStore, ENDED_STATUSES, type NewRun } from '../stores/completion-runs';
import type { RunEventStore, RunOwner, StoredStreamEvent } from '../stores/run-events';
import type { CompletionOutcome } from '../workflows/completion';
import { cancelQueuedRun } from '../workflows/session-runs';
import { completionWorkflowId, sessionRunsWorkflowId } from '../common/workflow-ids';
import { startCompletionInTurn, submitCompletion } from './workflow-starts';
import { boundedCalls, isPassingTemporalError, pause, type WaitBounds } from './temporal-waits';

export interface StartedRun {
  input: CompletionInput;
  workflowId: string;
  /** null while the run waits its turn behind earlier runs of its session (or when its start's answer was lost). */
  runId: string | null;
  status: 'running' | 'queued';
  /** false: its session's workflow did not answer in time (no worker polling); the run goes on once one comes. */
  admitted: boolean;
}

export interface CompletionCommandDeps extends PreparationDeps {
  sessions: SessionStore;
  sessionTurns: SessionTurnStore;
  temporal: Client;
  completionRuns: CompletionRunStore;
  runEvents: RunEventStore;
  log: Logger;
}

/** A completion request read and checked, ready to be handed to its session. */
interface CheckedRun {
  input: CompletionInput;
  strategy: MultitaskStrategy;
  /** Another run of the session that has not ended (a chat run: the strategy decides what becomes of this one). */
  unended: { traceId: string; kind: RunKind } | null;
  /** The session's turn, when the request has tried to take it already: `held` by this request, or `busy`. */
  turn?: 'held' | 'busy';
  /** When the request set out to take the turn it holds (epoch ms): its run's start is bounded from then. */
  turnSince?: number;
}

/** Who asks: the tenant, the principal an Idempotency-Key belongs to, and the person behind it. */
export interface Caller {
  tenantId: string;
  /** `<api_key|jwt>:<key id or subject>`: Idempotency-Keys are per principal. */
  principal: string;
  ownerId: string;
}

/** One request to ask an agent, as the route parsed it. */
export interface CompletionRequest {
  agentId: string;
  body: CompletionBody;
  idempotencyKey?: string;
  /** Last-Event-ID of a stream being resumed: the request attaches to that run, nothing runs again. */
  resumeAfter: { traceId: string; seq: number } | null;
  /** The request's own trace id, the run's when no Idempotency-Key names it. */
  traceId: string;
  /** Aborts when the client leaves: the request's waits end then (its run goes on). */
  signal?: AbortSignal;
}

/**
 * How a new run's stream opens: on its first event (`accepted`, number 0), sent from memory, while
 * what its start still writes goes on behind it. `handedOver` settles once the run is handed over
 * and its first events are recorded, or (a stream opened before the hand-over) once its failure is
 * recorded on its stream (`error`, `done`); it rejects, with the error the stream ends with, only
 * when nothing of that could be recorded.
 */
export interface StreamOpening {
  first: StoredStreamEvent;
  handedOver: Promise<void>;
}

/**
 * What a completion request comes to: its run's stream from an event on (a new run's, after the
 * `opening`), its JSON reply, or the 202 of a run that goes on without the client.
 * `replayed`: an earlier request with the same Idempotency-Key started the run.
 */
export type CompletionAnswer = { replayed: boolean } & (
  | { kind: 'stream'; traceId: string; owner: RunOwner; fromSeq: number; opening?: StreamOpening }
  | { kind: 'reply'; reply: CompletionReply }
  | { kind: 'accepted'; accepted: RunAccepted }
);

/** A run's trace id from the Idempotency-Key its request carried: per tenant and principal, as every key. */
const runTraceIdOfKey = (caller: Caller, key: string) =>
  `trc_k${createHash('sha256')
    .update(JSON.stringify([caller.tenantId, caller.principal, key]))
    .digest('hex')
    .slice(0, 27)}`;

/**
 * What makes two completion requests the same request: the agent and the body, but not `stream`,
 * `stream_format` or `background`, since a repeat may attach to a run streamed or not, either way.
 */
const requestHashOf = (agentId: string, body: CompletionBody) => {
  const { stream: _stream, stream_format: _format, background: _background, ...asked } = body;
  return createHash('sha256')
    .update(canonicalJson({ agent_id: agentId, ...asked }))
    .digest('hex');
};

const runOwner = (tenantId: string, run: Pick<CompletionRun, 'session_id' | 'agent_id' | 'workflow_id' | 'run_id'>): RunOwner => ({
  tenant_id: tenantId,
  session_id: run.session_id,
  agent_id: run.agent_id,
  workflow_id: run.workflow_id,
  run_id: run.run_id ?? '',
});

/**
 * How long after it set out to take its session's turn a request keeps trying to start its run's
 * workflow while Temporal answers late or not at all (a loaded server): as long as a request waits
 * for its session's workflow otherwise (COMPLETION_REPLY_WAIT_MS's default). The turn stays taken
 * when a start may have gone through: the session's workflow takes it from a holder that has had no
 * workflow for three minutes (activities/session-turns.ts), which leaves a minute for the hosts'
 * clocks to differ.
 */
const TURN_START_DEADLINE_MS = 120_000;
/** The longest one start attempt waits for Temporal's answer before it is asked again. */
const START_ATTEMPT_MS = 30_000;
/** Pauses between start attempts: from the first, doubling to the longest. */
const START_RETRY_FIRST_MS = 250;
const START_RETRY_MAX_MS = 5_000;
/** How long a request waits for a session's previous run to close once that run has answered. */
const CLOSING_RUN_WAIT_MS = 5_000;
/** How long a cancel waits for the run to record its end before it answers with the run as it is. */
const CANCEL_WAIT_MS = 15_000;
/**
 * How often a queued run's waiters look whether it has started, at most. A run just admitted has its
 * workflow's start issued but maybe not done yet (admission does not wait for it): the first looks
 * come sooner, from NOT_STARTED_FIRST_POLL_MS on, doubling.
 */
const QUEUED_POLL_MS = 250;
const NOT_STARTED_FIRST_POLL_MS = 10;
/**
 * How long one call of a run's result() lasts before a fresh one follows: the SDK adds an abort
 * listener to the call's signal for each of its long polls (one each 20 s or so) and never removes
 * it, so a wait as long as a stream's starts over, with a new signal, before they pile up (Node
 * warns past 10). Ended by abort, not by a gRPC deadline, which the server meets with a burst of
 * immediate empty polls.
 */
const RESULT_ATTEMPT_MS = 180_000;
const KNOWN_CODES = new Set<number>(Object.values(ErrorCodes));
/**
 * A wait for a run's end asks again when Temporal failed for the moment (isPassingTemporalError):
 * after TEMPORAL_RETRY_MS, doubling to TEMPORAL_RETRY_MAX_MS, for at most TEMPORAL_FAILING_MAX_MS
 * in a row (a wait without a deadline too: a stream then ends by its own grace rules).
 */
const TEMPORAL_RETRY_MS = 250;
const TEMPORAL_RETRY_MAX_MS = 5_000;
const TEMPORAL_FAILING_MAX_MS = 120_000;
/** Tries of a handed-over run's first events after their first write failed (recordFirstEventsAgain). */
const FIRST_EVENTS_ATTEMPTS = 5;
const FIRST_EVENTS_RETRY_MS = 250;

/** The error a failed run ended with, as the spec's code (30001 model, 30002 tool timeout, ...). */
function runError(err: unknown): AppError {
  if (err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure && err.cause.type === RUN_FAILURE_TYPE) {
    const code = (err.cause.details?.[0] as { code?: number } | undefined)?.code;
    if (code !== undefined && code !== 0 && KNOWN_CODES.has(code)) return new AppError(code as AppError['code'], err.cause.message);
  }
  return new AppError(ErrorCodes.INTERNAL, 'the completion failed inside the service');
}

const wasCancelled = (err: unknown) => err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure;

/** The 202 reply of a run that goes on without the client: where to follow it, and where it is now. */
const acceptedOf = (run: { trace_id: string; session_id: string; status: string }): RunAccepted => ({
  trace_id: run.trace_id,
  session_id: run.session_id,
  status: run.status === 'queued' || run.status === 'waiting_approval' ? run.status : 'running',
  links: { self: `/v1/combo/completions/${run.trace_id}`, events: `/v1/combo/completions/${run.trace_id}/events` },
});

/** A run's reply built from its record (a cancelled run, or one followed after the request that started it). */
const replyOfRecord = (run: CompletionRun, input: Pick<CompletionInput, 'offline'>): CompletionReply => ({
  session_id: run.session_id,
  answer: run.answer ?? '',
  reference: run.reference,
  trace_id: run.trace_id,
  cost: run.cost ?? { tokens: 0, duration_ms: 0 },
  route: run.route,
  model: run.model,
  offline: input.offline,
  stop_reason: run.stop_reason ?? 'canceled',
  artifacts: run.artifacts,
});

export function createCompletionCommands(deps: CompletionCommandDeps) {
  const { temporal, config, completionRuns } = deps;
  const startRecorder = createRunStartRecorder({ runs: completionRuns, runEvents: deps.runEvents });
  const taskQueue = config.TEMPORAL_TASK_QUEUE;

  /**
   * Hands the run to its session: an idle one's run starts at once (startInTurn; `recorded` settles
   * once the run's record is written), else the session's workflow takes it. A refusal (`reject`
   * while an earlier run is going) is 10005 naming that run; a client may ask again right after
   * `done`, while the answered run is still closing, so when every earlier run has recorded its end
   * the session waits a moment for them to close.
   */
  async function submit(
    { input, strategy, unended, turn, turnSince }: CheckedRun,
    recorded: Promise<void>,
    signal?: AbortSignal,
  ): Promise<Omit<StartedRun, 'input'>> {
    // Only a session with no unended run is idle: a free turn beside an unended run is a session
    // workflow between its runs (its next one queued), whose order the strategy must keep.
    if (unended === null && turn !== 'busy') {
      const started = await startInTurn(input, recorded, turn === 'held' ? turnSince! : null);
      if (started) return started;
    } else if (turn === 'held') await releaseTurn(input);
    // Recorded first: a second request racing with the same Idempotency-Key (and so the same trace
    // id, maybe the run that holds the turn) stops at its record, never reaching the session's workflow.
    await recorded;
    const closing = strategy === 'reject' && unended === null;
    const admission = await submitCompletion(
      temporal,
      taskQueue,
      { input, strategy, closingGraceMs: closing ? CLOSING_RUN_WAIT_MS : 0 },
      { signal, deadline: Date.now() + config.COMPLETION_REPLY_WAIT_MS },
    );
    const workflowId = completionWorkflowId(input.traceId);
    // Accepted, and going on once a worker comes.
    if (admission === null) return { workflowId, runId: null, status: 'running', admitted: false };
    if (admission.status === 'rejected') {
      throw conflict(`session ${input.sessionId} already has a completion running (${admission.busyWith}); wait for it to finish`, {
        session_id: input.sessionId,
        running_trace_id: admission.busyWith,
        workflow_id: completionWorkflowId(admission.busyWith),
      });
    }
    return { workflowId, runId: admission.runId, status: admission.status, admitted: true };
  }

  type TurnOf = Pick<CompletionInput, 'tenantId' | 'sessionId' | 'traceId'>;
  /** Takes the session's turn; a store that fails counts as a turn taken by someone (the session's workflow decides then). */
  const takeTurn = (run: TurnOf) => deps.sessionTurns.take(run.tenantId, run.sessionId, run.traceId).catch(() => false);
  const releaseTurn = (run: TurnOf) => deps.sessionTurns.release(run.sessionId, run.traceId).catch(() => undefined);

  /**
   * Starts the run of an idle session itself, without a round trip through the session's workflow,
   * when the request can take the session's turn (stores/session-turns.ts); null when someone holds
   * it (a run, or the session's workflow with runs of its own): the session's workflow decides then.
   * `heldSince`: when the request set out to take the turn it holds already.
   */
  async function startInTurn(
    input: CompletionInput,
    recorded: Promise<void>,
    heldSince: number | null,
  ): Promise<Omit<StartedRun, 'input'> | null> {
    const since = heldSince ?? Date.now();
    if (heldSince === null && !(await takeTurn(input))) return null;
    const start = { mayHaveGoneThrough: false };
    try {
      // The run's workflow writes its end into the run's record: the record is there first.
      await recorded;
      const runId = await startOnce(input, since + TURN_START_DEADLINE_MS, start);
      return { workflowId: completionWorkflowId(input.traceId), runId, status: 'running', admitted: true };
    } catch (err) {
      // Refused: the turn goes back. A start that may have gone through keeps it, whatever came after
      // (the session's workflow judges such a holder by its workflow).
      if (!start.mayHaveGoneThrough) await releaseTurn(input);
      throw err;
    }
  }

  /**
   * Starts the run's workflow by `deadline`, asking again while Temporal answers late or is loaded:
   * a start that got no answer in time may have gone through (`start.mayHaveGoneThrough`), and a
   * start refused as a duplicate is this run's own (only this request starts its trace id: a keyed
   * twin stops at the run's record). Answers the run id, null when it cannot be had in time.
   */
  async function startOnce(input: CompletionInput, deadline: number, start: { mayHaveGoneThrough: boolean }): Promise<string | null> {
    let pauseMs = START_RETRY_FIRST_MS;
    for (;;) {
      try {
        const attemptDeadline = Math.min(deadline, Date.now() + START_ATTEMPT_MS);
        return await temporal.withDeadline(attemptDeadline, () => startCompletionInTurn(temporal, taskQueue, input));
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          return temporal
            .withDeadline(deadline, () => temporal.workflow.getHandle(completionWorkflowId(input.traceId)).describe())
            .then(
              (described) => described.runId,
              () => null,
            );
        }
        const late = isGrpcDeadlineError(err);
        if (late) start.mayHaveGoneThrough = true;
        if (!(late || isPassingTemporalError(err)) || Date.now() + pauseMs >= deadline) throw err;
      }
      await pause(pauseMs);
      pauseMs = Math.min(START_RETRY_MAX_MS, pauseMs * 2);
    }
  }

  /**
   * Waits until the run's workflow has ended, at most until `deadline` and until `signal` aborts
   * (its caller left): null when it had not ended by then. A run still queued has no workflow yet;
   * it is waited for while its record says it is queued.
   */
  async function waitForEnd(
    tenantId: string,
    traceId: string,
    { signal, deadline }: WaitBounds,
  ): Promise<{ outcome?: CompletionOutcome; error?: unknown } | null> {
    const handle = temporal.workflow.getHandle<(input: CompletionInput) => Promise<CompletionOutcome>>(completionWorkflowId(traceId));
    let notStartedPollMs = NOT_STARTED_FIRST_POLL_MS;
    let temporalRetryMs = TEMPORAL_RETRY_MS;
    let failingSince: number | null = null;
    while (!signal?.aborted && Date.now() < deadline) {
      const attempt = new AbortController();
      const signals = signal ? [signal, attempt.signal] : [attempt.signal];
      const attemptTimer = setTimeout(() => attempt.abort(), Math.min(RESULT_ATTEMPT_MS, deadline - Date.now()));
      try {
        return { outcome: await boundedCalls(temporal, { signal: AbortSignal.any(signals), deadline }, () => handle.result()) };
      } catch (err) {
        if (signal?.aborted || attempt.signal.aborted || isGrpcDeadlineError(err)) continue;
        if (isPassingTemporalError(err)) {
          failingSince ??= Date.now();
          if (Date.now() - failingSince > TEMPORAL_FAILING_MAX_MS) return { error: err };
          await pause(Math.min(temporalRetryMs, deadline - Date.now()), signal);
          temporalRetryMs = Math.min(TEMPORAL_RETRY_MAX_MS, temporalRetryMs * 2);
          continue;
        }
        failingSince = null;
        temporalRetryMs = TEMPORAL_RETRY_MS;
        if (!(err instanceof WorkflowNotFoundError)) return { error: err };
        // Queued, or handed to a session no worker has taken up yet: its workflow is still to come.
        const run = await completionRuns.get(tenantId, traceId).catch(() => null);
        if (!run || ENDED_STATUSES.includes(run.status)) return { error: err };
        await pause(Math.min(notStartedPollMs, deadline - Date.now()), signal);
        notStartedPollMs = Math.min(QUEUED_POLL_MS, notStartedPollMs * 2);
      } finally {
        clearTimeout(attemptTimer);
      }
    }
    return null;
  }

  /**
   * Checks a completion request and builds the workflow's input; everything the run reads of the
   * agent, session and skills is read here, once. A run of an agent task going in the session is
   * 10005: it goes round the session's workflow, which cannot queue behind or cancel it.
   */
  async function check(tenantId: string, agentId: string, body: CompletionBody, traceId: string): Promise<CheckedRun> {
    // Read beside the input, not after it: a request's reads go side by side.
    const unendedRun = completionRuns.unendedRun(tenantId, body.session_id, traceId);
    unendedRun.catch(() => undefined);
    // The agent is read once: the input is built from it, and its multitask strategy applies.
    const agentRead = deps.agents.get(tenantId, agentId);
    agentRead.catch(() => undefined);
    const [input, agent, unended] = await Promise.all([
      prepareCompletionInput(deps, {
        traceId,
        tenantId,
        agentId,
        sessionId: body.session_id,
        question: body.question,
        // A background run streams its model's answer into its events, for whoever follows it.
        stream: body.stream || body.background,
        route: body.route,
        attachments: body.attachments,
        contextIds: body.context_ids,
        agentRead,
      }),
      agentRead,
      unendedRun,
    ]);
    if (unended && unended.kind !== 'chat') {
      throw conflict(`session ${input.sessionId} has an agent task's run going (${unended.traceId}); wait for it to finish`, {
        session_id: input.sessionId,
        running_trace_id: unended.traceId,
        workflow_id: completionWorkflowId(unended.traceId),
      });
    }
    return { input, strategy: body.multitask_strategy ?? agent.multitask_strategy, unended };
  }

  const newRunOf = ({ input }: CheckedRun, body: CompletionBody, requested: { by: string; hash: string }): NewRun => ({
    traceId: input.traceId,
    tenantId: input.tenantId,
    agentId: input.agentId,
    sessionId: input.sessionId,
    kind: 'chat',
    workflowId: completionWorkflowId(input.traceId),
    route: input.route.text,
    question: body.question,
    stream: body.stream,
    offline: input.offline,
    requestedBy: requested.by,
    requestHash: requested.hash,
    separateDuties: input.approval?.separateDuties ?? false,
  });

  /**
   * Records a checked run and hands it to its session's workflow, which starts it at once, queues
   * it, or (strategy `reject`) refuses it with 10005 while another run of the session is going.
   */
  async function start(
    checked: CheckedRun,
    body: CompletionBody,
    requested: { by: string; hash: string },
    signal?: AbortSignal,
  ): Promise<StartedRun> {
    const { traceId } = checked.input;
    // The run's record and its submission go together; a refused submission removes the record. A
    // trace id recorded already is a second request racing with the same Idempotency-Key.
    const recorded = startRecorder.recordRun(newRunOf(checked, body, requested)).then((created) => {
      if (!created)
        throw conflict('a request with this Idempotency-Key is still being processed; retry later', {
          field: 'header.Idempotency-Key',
        });
    });
    let submitted: Omit<StartedRun, 'input'>;
    try {
      [, submitted] = await Promise.all([recorded, submit(checked, recorded, signal)]);
    } catch (err) {
      await recorded.then(() => completionRuns.discard(traceId)).catch(() => undefined);
      throw err;
    }
    // Only the run's own workflow writes its record from here on (a running run's run id is read
    // from Temporal until its end records it): FerretDB applies an update by rewriting the whole
    // document, so a second writer racing the run's end could undo it.
    if (submitted.status === 'queued') await completionRuns.queued(traceId);
    return { input: checked.input, ...submitted };
  }

  /**
   * Hands a checked run over behind its stream, which has opened on `accepted` already. The record
   * comes first (nothing is handed over unrecorded: the stream's wait for the run's end reads it),
   * then the submission beside the `accepted` event's write, and `queued` once the session queues
   * the run. The client leaving does not cut it short: the submission then hands the run over with
   * signal-with-start, durable at once. A failed submission ends the run failed, with `error` and
   * `done` on its stream; only when that cannot be recorded either does this reject, with the
   * error for the stream to end with, and the record is removed so that nothing looks alive.
   */
  async function handOverBehindStream(
    checked: CheckedRun,
    body: CompletionBody,
    requested: { by: string; hash: string },
    owner: RunOwner,
    signal?: AbortSignal,
  ): Promise<void> {
    const { input } = checked;
    const { traceId } = input;
    const first = {
      route: input.route.text,
      offline: input.offline,
      queued: false,
      owner,
      recordedAt: new Date(input.requestedAt),
      announce: true,
    };
    let created: boolean;
    try {
      created = await startRecorder.recordRun(newRunOf(checked, body, requested));
      // Only an Idempotency-Key names a trace id twice, and keyed requests do not come this way.
      if (!created) throw new Error(`run ${traceId} was recorded already`);
    } catch (err) {
      // Nothing was handed over: a turn the request took goes back.
      if (checked.turn === 'held') await releaseTurn(input);
      throw streamError(traceId, err);
    }
    const acceptedWrite = startRecorder.recordFirstEvents(traceId, first);
    acceptedWrite.catch(() => undefined);
    let submitted: Omit<StartedRun, 'input'>;
    try {
      submitted = await submit(checked, Promise.resolve(), signal);
    } catch (err) {
      const error = streamError(traceId, err);
      try {
        // Event 0 first, written again if its first write failed (it is keyed: never twice).
        await acceptedWrite.catch(() => startRecorder.recordFirstEvents(traceId, first));
        await startRecorder.recordFailedHandOver(input, { code: error.code, message: error.message }, new Date());
      } catch (recordErr) {
        deps.log.error('could not record a failed hand-over; its stream ends from memory', { trace_id: traceId, error: String(recordErr) });
        await completionRuns.discard(traceId).catch(() => undefined);
        throw error;
      }
      return;
    }
    // The run goes on: a failed write of its first events is tried again behind it.
    await acceptedWrite.catch(() => recordFirstEventsAgain(traceId, first));
    if (submitted.status === 'queued')
      await Promise.all([completionRuns.queued(traceId), startRecorder.recordQueued(traceId)]).catch((err: unknown) =>
        deps.log.error("could not record a run's queued event", { trace_id: traceId, error: String(err) }),
      );
  }

  /**
   * check(); a stream that may open early takes its session's turn beside it (its first event waits
   * for the turn under `reject`), and gives it back when the request is refused.
   */
  async function checkBesideTurn(
    tenantId: string,
    agentId: string,
    body: CompletionBody,
    traceId: string,
    early: boolean,
  ): Promise<CheckedRun> {
    if (!early) return check(tenantId, agentId, body, traceId);
    const turn = { tenantId, sessionId: body.session_id, traceId };
    const since = Date.now();
    const taken = takeTurn(turn);
    let checked: CheckedRun;
    try {
      checked = await check(tenantId, agentId, body, traceId);
    } catch (err) {
      if (await taken) await releaseTurn(turn);
      throw err;
    }
    checked.turn = (await taken) ? 'held' : 'busy';
    checked.turnSince = since;
    return checked;
  }

  /** Whether the request took its idle session's turn (noted on `checked` either way, so that nothing tries again). */
  async function tookTurn(checked: CheckedRun): Promise<boolean> {
    // Not idle (see submit): a turn taken beside the checks goes back, and the session's workflow decides.
    if (checked.unended !== null) {
      if (checked.turn === 'held') await releaseTurn(checked.input);
      checked.turn = 'busy';
      return false;
    }
    if (checked.turn !== undefined) return checked.turn === 'held';
    checked.turnSince = Date.now();
    checked.turn = (await takeTurn(checked.input)) ? 'held' : 'busy';
    return checked.turn === 'held';
  }

  /**
   * A new run's stream opens on its `accepted` event from memory: the same event as the one
   * recorded (number 0, which only this request writes), stamped with the request's time.
   */
  const openingOf = (input: CompletionInput, handedOver: Promise<void>): StreamOpening => {
    const { key: _key, ...accepted } = acceptedEvent(input.traceId, { route: input.route.text, offline: input.offline });
    return { first: { ...accepted, seq: 0, recordedAt: new Date(input.requestedAt) }, handedOver };
  };

  /**
   * The first events of a run handed over already, after their first write failed: tried again
   * (they are keyed: never twice) a few times, FIRST_EVENTS_RETRY_MS doubling apart, since a follower
   * from event 0 (GET …/events, a repeated keyed request) waits for event 0 before any other.
   */
  async function recordFirstEventsAgain(traceId: string, first: FirstEvents): Promise<void> {
    let waitMs = FIRST_EVENTS_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      await pause(waitMs);
      try {
        await startRecorder.recordFirstEvents(traceId, first);
        return;
      } catch (err) {
        if (attempt >= FIRST_EVENTS_ATTEMPTS) {
          deps.log.error("could not record a run's first events", { trace_id: traceId, error: String(err) });
          return;
        }
        waitMs *= 2;
      }
    }
  }

  /** The error a stream that opened early ends with when its run could not be handed over: a contract code, the cause logged. */
  function streamError(traceId: string, err: unknown): AppError {
    if (err instanceof AppError) return err;
    deps.log.error('a completion could not be handed to its session after its stream opened', {
      trace_id: traceId,
      error: String(err),
      ...(err instanceof Error && err.cause instanceof Error ? { cause: err.cause.message } : {}),
    });
    return new AppError(ErrorCodes.INTERNAL, 'the completion could not be started; ask again');
  }

  /**
   * Waits for the run, at most COMPLETION_REPLY_WAIT_MS, and shapes its outcome as the reply; null
   * when the run is still going then (it goes on: the client follows it by trace id). A cancelled
   * run answers with what it had (`stop_reason: canceled`).
   */
  async function awaitReply(run: StartedRun, signal?: AbortSignal): Promise<CompletionReply | null> {
    if (!run.admitted) return null;
    const ended = await waitForEnd(run.input.tenantId, run.input.traceId, {
      signal,
      deadline: Date.now() + config.COMPLETION_REPLY_WAIT_MS,
    });
    if (ended === null) return null;
    if (ended.error !== undefined) {
      if (!wasCancelled(ended.error)) throw runError(ended.error);
      return replyOfRecord(await completionRuns.get(run.input.tenantId, run.input.traceId), run.input);
    }
    const outcome = ended.outcome!;
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

  /**
   * The reply of a run started earlier (a request repeated with its Idempotency-Key): waited for
   * like a first request's, at most COMPLETION_REPLY_WAIT_MS (or until `deadline`); null while it is still going.
   */
  async function follow(
    tenantId: string,
    traceId: string,
    signal?: AbortSignal,
    deadline = Date.now() + config.COMPLETION_REPLY_WAIT_MS,
  ): Promise<CompletionReply | null> {
    await waitForEnd(tenantId, traceId, { signal, deadline });
    const run = await completionRuns.get(tenantId, traceId);
    if (run.status === 'failed' && run.error) {
      const code = KNOWN_CODES.has(run.error.code) ? (run.error.code as AppError['code']) : ErrorCodes.INTERNAL;
      throw new AppError(code, run.error.message);
    }
    if (run.status !== 'completed' && run.status !== 'canceled') return null;
    return replyOfRecord(run, { offline: run.offline });
  }

  /** The run's owner, from its record; another tenant's run does not exist for the caller. */
  async function ownerOf(tenantId: string, traceId: string): Promise<RunOwner> {
    return runOwner(tenantId, await completionRuns.get(tenantId, traceId));
  }

  /**
   * A request repeated with its Idempotency-Key: attaches to the run the first one started, as a
   * stream, the reply or a 202. Another request with the same key (another agent, session,
   * question, ... anything but `stream` and `background`) is 10005.
   */
  async function attach(
    tenantId: string,
    request: CompletionRequest,
    traceId: string,
    requestHash: string,
  ): Promise<CompletionAnswer | null> {
    const earlier = await completionRuns.findRequested(tenantId, traceId);
    if (!earlier) return null;
    const { run } = earlier;
    // Runs recorded before requests were fingerprinted are compared by agent and session.
    const same = earlier.requestHash
      ? earlier.requestHash === requestHash
      : run.agent_id === request.agentId && run.session_id === request.body.session_id;
    if (!same)
      throw conflict('header.Idempotency-Key: this key was used for another request; a new request needs a new key', {
        field: 'header.Idempotency-Key',
      });
    if (request.body.stream) return { replayed: true, kind: 'stream', traceId, owner: runOwner(tenantId, run), fromSeq: 0 };
    const reply = request.body.background ? null : await follow(tenantId, traceId, request.signal);
    return reply ? { replayed: true, kind: 'reply', reply } : { replayed: true, kind: 'accepted', accepted: acceptedOf(run) };
  }

  return {
    /**
     * A request to ask an agent, whole: a resumed stream attaches to its run; a request repeated
     * with its Idempotency-Key attaches to the run the key started (the run's trace id, and so its
     * workflow id, follows from the key, from any API process); else the run starts, its first
     * stream events are recorded, and the answer is its stream, its reply (waited for at most
     * COMPLETION_REPLY_WAIT_MS, else a 202 saying where it is) or a 202 for a background run. A
     * stream that nothing left can refuse with an HTTP error opens once the request is checked,
     * before its run is handed over (see handOverBehindStream).
     */
    async ask(caller: Caller, request: CompletionRequest): Promise<CompletionAnswer> {
      const { agentId, body } = request;
      if (request.resumeAfter) {
        const { traceId, seq } = request.resumeAfter;
        const owner = await ownerOf(caller.tenantId, traceId);
        if (owner.session_id !== body.session_id || owner.agent_id !== agentId) {
          throw new AppError(ErrorCodes.NOT_FOUND, `completion ${traceId} is not a run of this agent and session`, {
            resource: 'completion',
            id: traceId,
          });
        }
        return { replayed: false, kind: 'stream', traceId, owner, fromSeq: seq + 1 };
      }
      if (body.background && body.stream)
        throw invalid('background: a background run answers at once; follow it with GET …/events instead of stream', {
          field: 'body.background',
        });
      const requestHash = requestHashOf(agentId, body);
      const traceId = request.idempotencyKey ? runTraceIdOfKey(caller, request.idempotencyKey) : request.traceId;
      if (request.idempotencyKey) {
        const attached = await attach(caller.tenantId, request, traceId, requestHash);
        if (attached) return attached;
      }
      // Only `reject` (the default unless the agent says otherwise) waits for the turn to open the stream.
      const takesTurnEarly = Boolean(body.stream && !request.idempotencyKey && (body.multitask_strategy ?? 'reject') === 'reject');
      const checked = await checkBesideTurn(caller.tenantId, agentId, body, traceId, takesTurnEarly);
      const requested = { by: caller.ownerId, hash: requestHash };
      // A stream opens at once on its `accepted` event when nothing left can refuse its run with an
      // HTTP error: a strategy that cannot refuse, or `reject` once the request holds its idle
      // session's turn (else 10005 may come, before any stream); never a keyed request (a concurrent
      // one with its key may hold its trace id, and a failed hand-over must leave the key free).
      if (body.stream && !request.idempotencyKey && (checked.strategy !== 'reject' || (await tookTurn(checked)))) {
        const owner = runOwner(caller.tenantId, {
          session_id: checked.input.sessionId,
          agent_id: agentId,
          workflow_id: completionWorkflowId(traceId),
          run_id: null,
        });
        const handedOver = handOverBehindStream(checked, body, requested, owner, request.signal);
        handedOver.catch(() => undefined);
        return { replayed: false, kind: 'stream', traceId, owner, fromSeq: 1, opening: openingOf(checked.input, handedOver) };
      }
      const run = await start(checked, body, requested, request.signal);
      const owner = runOwner(caller.tenantId, {
        session_id: run.input.sessionId,
        agent_id: run.input.agentId,
        workflow_id: run.workflowId,
        run_id: run.runId,
      });
      const first = {
        route: run.input.route.text,
        offline: run.input.offline,
        queued: run.status === 'queued',
        owner,
        recordedAt: new Date(run.input.requestedAt),
        announce: run.input.stream,
      };
      const written = startRecorder.recordFirstEvents(traceId, first);
      if (body.background) {
        await written;
        return {
          replayed: false,
          kind: 'accepted',
          accepted: acceptedOf({ trace_id: traceId, session_id: run.input.sessionId, status: run.status }),
        };
      }
      if (body.stream) {
        // Handed over: nothing is left to fail but the first events' write, tried again behind the stream.
        const handedOver = written.catch(() => recordFirstEventsAgain(traceId, first));
        return { replayed: false, kind: 'stream', traceId, owner, fromSeq: 1, opening: openingOf(run.input, handedOver) };
      }
      const [, reply] = await Promise.all([written, awaitReply(run, request.signal)]);
      if (reply) return { replayed: false, kind: 'reply', reply };
      // Still going: where it is now (it may be waiting for an approval).
      return { replayed: false, kind: 'accepted', accepted: acceptedOf(await completionRuns.get(caller.tenantId, traceId)) };
    },

    /** The session of the run an Idempotency-Key of this caller started; null when it started none. */
    async sessionOfKey(caller: Caller, key: string): Promise<string | null> {
      const earlier = await completionRuns.findRequested(caller.tenantId, runTraceIdOfKey(caller, key));
      return earlier?.run.session_id ?? null;
    },

    /**
     * A run's reply once it has ended, however long that takes (its own COMPLETION_RUN_TIMEOUT_MS
     * bounds it), waited for while the caller stays; null when `signal` aborts first. A failed run
     * is its error.
     */
    replyWhenEnded(tenantId: string, traceId: string, signal: AbortSignal): Promise<CompletionReply | null> {
      return follow(tenantId, traceId, signal, Number.POSITIVE_INFINITY);
    },

    /** Where a stream of a run's events starts: the run's owner (10004 for another tenant's run) and the event after `after`. */
    async eventsFrom(tenantId: string, traceId: string, after: number | null): Promise<{ owner: RunOwner; fromSeq: number }> {
      return { owner: await ownerOf(tenantId, traceId), fromSeq: after === null ? 0 : after + 1 };
    },

    /**
     * Settles once the run has ended, however it ended (a queued run: once it has started and
     * ended), or once `signal` aborts (its follower left).
     */
    async ended(tenantId: string, traceId: string, signal: AbortSignal): Promise<void> {
      await waitForEnd(tenantId, traceId, { signal, deadline: Number.POSITIVE_INFINITY });
    },

    /**
     * Cancels a run: a queued one leaves its session's queue; a running one's workflow is cancelled,
     * which aborts its model and tool calls and records what it had. Answers the run once it has
     * recorded its end (or, past CANCEL_WAIT_MS, as it is then). A run that had ended is 10005.
     */
    async cancel(tenantId: string, traceId: string, signal?: AbortSignal): Promise<CompletionRun> {
      const run = await completionRuns.get(tenantId, traceId);
      const refuseEnded = (status: string) =>
        conflict(`completion ${traceId} has already ended (${status}); there is nothing to cancel`, { trace_id: traceId, status });
      if (ENDED_STATUSES.includes(run.status)) throw refuseEnded(run.status);
      const bounds = { signal, deadline: Date.now() + CANCEL_WAIT_MS };
      if (run.status === 'queued') {
        const session = temporal.workflow.getHandle(sessionRunsWorkflowId(run.session_id));
        const removed = await boundedCalls(temporal, bounds, () => session.executeUpdate(cancelQueuedRun, { args: [traceId] })).catch(
          () => false,
        );
        if (removed) return completionRuns.get(tenantId, traceId);
      }
      try {
        await temporal.workflow.getHandle(run.workflow_id, run.run_id ?? undefined).cancel();
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
      await waitForEnd(tenantId, traceId, bounds);
      const after = await completionRuns.get(tenantId, traceId);
      if (after.status === 'completed' || after.status === 'failed') throw refuseEnded(after.status);
      return after;
    },

    /** A run's record; a running one's run id, not recorded until its end, comes from Temporal. */
    async get(tenantId: string, traceId: string): Promise<CompletionRun> {
      const run = await completionRuns.get(tenantId, traceId);
      if (run.run_id !== null || ENDED_STATUSES.includes(run.status) || run.status === 'queued') return run;
      const described = await temporal.workflow
        .getHandle(run.workflow_id)
        .describe()
        .catch(() => null);
      return { ...run, run_id: described?.runId ?? null };
    },

    /** The tenant's runs, or a session's or an agent's (10004 when the tenant has no such session or agent). */
    async list(tenantId: string, query: RunListQuery, scope: { sessionId?: string; agentId?: string } = {}) {
      if (scope.sessionId) await deps.sessions.get(tenantId, scope.sessionId);
      if (scope.agentId) await deps.agents.get(tenantId, scope.agentId);
      return completionRuns.list(tenantId, query, scope);
    },
  };
}
