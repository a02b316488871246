import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  patched,
  proxyLocalActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
  allHandlersFinished,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { MultitaskStrategy } from '../common/schemas/agents';
import { completionMemo, completionSearchAttributes } from '../common/search-attributes';
import { completionWorkflowId, SESSION_WORKFLOW_HOLDER } from '../common/workflow-ids';
import { type CompletionInput, runContextOf } from '../completion/run-input';
import { completionWorkflow } from './completion';

/*
 * One workflow per session with runs (`session-runs-<session_id>`), started by the first completion
 * and ended once the session has been idle for IDLE_LINGER_MS. It runs the session's completions
 * one at a time, in order, each as a child workflow of its own (`completion-<trace_id>`), and
 * applies each request's multitask strategy.
 *
 * The API hands it a run with update-with-start (`takeRun`), which answers as soon as the run's
 * fate is known: refused by `reject`, queued, or its workflow's start issued (in the same workflow
 * task: one round trip through the worker). A request that gets no answer in time (no worker) or
 * whose client leaves hands the run over again with signal-with-start (`submitRun`), durable at
 * once: the run is taken when a worker comes, once whichever arrives first. Before `takeRun`, the
 * API sent `submitRun`, then asked with the `admitRun` update, which waited for the run's workflow
 * to have started; both stay for requests of API processes from before.
 *
 * A request for an idle session skips this workflow: it takes the session's turn in the store and
 * starts its run itself (stores/session-turns.ts). This workflow holds the turn while it has runs,
 * gives it back once idle, and treats a run that holds the turn as the session's going run: `reject`
 * refuses beside it, `enqueue` waits for its end, `interrupt` and `rollback` cancel it.
 */

export interface SessionRunsState {
  tenantId: string;
  agentId: string;
  sessionId: string;
  /** Runs waiting their turn, carried over a continue-as-new. */
  queue: CompletionInput[];
}

export interface RunSubmission {
  input: CompletionInput;
  strategy: MultitaskStrategy;
  /** How long past its own time bound a run may live before Temporal ends it (the backstop). */
  backstopMarginMs: number;
  /**
   * `reject` waits this long for the session's going run to close before refusing: the API sets it
   * when that run has already recorded its end (a client may ask again right after `done`).
   */
  closingGraceMs: number;
}

export type Admission =
  { status: 'running' | 'queued'; workflowId: string; runId: string | null } | { status: 'rejected'; busyWith: string };

interface SessionRunsView {
  running: string | null;
  queued: string[];
}

export const submitRun = defineSignal<[RunSubmission]>('submitRun');
/**
 * Takes a run as `submitRun` does and answers once its fate is known: refused, queued, or running
 * (its workflow's start issued; `runId` null until it has started, which is not waited for).
 */
export const takeRun = defineUpdate<Admission, [RunSubmission]>('takeRun');
/** What became of a submitted run; waits until it has started when nothing was ahead of it. */
const admitRun = defineUpdate<Admission, [string]>('admitRun');
/** Removes a queued run, recording it cancelled; false when it is not queued (any more). */
export const cancelQueuedRun = defineUpdate<boolean, [string]>('cancelQueuedRun');
/** What the session runs now and has queued (for operators: `temporal workflow query --type sessionRuns`). */
const sessionRunsQuery = defineQuery<SessionRunsView>('sessionRuns');

const IDLE_LINGER_MS = 60_000;
/** Runs one execution takes before it continues as new, keeping its history short. */
const RUNS_PER_EXECUTION = 200;

const { recordCanceledRun, removeRunTurn, recordRejectedRun, takeSessionTurn, releaseSessionTurn, turnHolderGone } =
  proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
  });

/** Patch id of sharing the session's turn with runs that take it alone (stores/session-turns.ts). */
const SESSION_TURNS = 'session-turns';
/** How long the turn's steps wait before trying again (a failing store, a holder not started yet). */
const TURN_RETRY_MS = 250;
/**
 * How often the workflow looks whether a run holding the turn is gone, besides the `turnReleased`
 * signal the run sends as it gives the turn back: from HOLDER_POLL_FIRST_MS, doubling to
 * HOLDER_POLL_MAX_MS, and to HOLDER_POLL_LONG_MS once it has waited HOLDER_POLL_LONG_AFTER_MS (a run
 * waiting for an approval), so that a long wait adds few events to the history. No activity slot is
 * held while waiting.
 */
const HOLDER_POLL_FIRST_MS = 250;
const HOLDER_POLL_MAX_MS = 5_000;
const HOLDER_POLL_LONG_MS = 60_000;
const HOLDER_POLL_LONG_AFTER_MS = 600_000;

/** Sent by a run that held the session's turn as it gives it back (commands/run-watch.ts). */
export const turnReleased = defineSignal<[string]>('turnReleased');

interface CurrentRun {
  input: CompletionInput;
  scope: CancellationScope;
  runId: string | null;
  ended: boolean;
}

export async function sessionRunsWorkflow(state: SessionRunsState): Promise<void> {
  const queue = [...state.queue];
  let current: CurrentRun | null = null;
  /** What became of each run this execution was given, so a repeated submission changes nothing. */
  const outcomes = new Map<string, 'pending' | 'taken' | { rejected: string }>(queue.map((q) => [q.traceId, 'taken']));
  let backstopMarginMs = 120_000;
  let runs = 0;
  const turns = createTurnKeeper(state);

  const busyWith = () => current?.input.traceId ?? queue[0]?.traceId ?? turns.holder();

  /** Cancels every earlier run: queued ones are recorded cancelled; the running one records its own end. */
  async function cancelEarlierRuns(rollback: boolean): Promise<void> {
    for (const queued of queue.splice(0)) await cancelBeforeStart(queued);
    // A run holding the turn may be unknown yet (its look failed, or runs were queued when it came).
    if (current === null) await turns.learnHolder();
    await turns.cancelHolder(rollback);
    const running = current;
    if (!running) return;
    running.scope.cancel();
    await condition(() => running.ended);
    if (rollback) {
      await removeRunTurn({ tenantId: state.tenantId, sessionId: state.sessionId, traceId: running.input.traceId });
    }
  }

  /** What submitRun and takeRun do with a run: a run given twice (signal and update) is taken once. */
  async function take({ input, strategy, backstopMarginMs: margin, closingGraceMs }: RunSubmission): Promise<void> {
    if (outcomes.has(input.traceId)) return;
    outcomes.set(input.traceId, 'pending');
    // A run that took the session's turn alone is the session's going run too.
    if (current === null && queue.length === 0) await turns.learnHolder();
    if (strategy === 'reject' && busyWith() !== null && closingGraceMs > 0) await condition(() => busyWith() === null, closingGraceMs);
    // A twin request with this Idempotency-Key may hold the turn under this very trace id: not a run of its own.
    const going = busyWith() === input.traceId ? null : busyWith();
    if (strategy === 'reject' && going !== null) {
      outcomes.set(input.traceId, { rejected: going });
      await recordRejectedRun({ ctx: runContextOf(input), seq: input.firstSeq, busyWith: going });
      return;
    }
    // Pending while the earlier runs close or are cancelled; taken once in the queue.
    backstopMarginMs = margin;
    if (strategy === 'interrupt' || strategy === 'rollback') await cancelEarlierRuns(strategy === 'rollback');
    queue.push(going !== null ? { ...input, refreshHistory: true } : input);
    outcomes.set(input.traceId, 'taken');
  }

  setHandler(submitRun, take);
  setHandler(turnReleased, (traceId) => turns.noteReleased(traceId));

  /** Settles once the run's fate is known: refused, queued, or running (or over), its workflow's start issued. */
  const decided = (traceId: string) =>
    condition(
      () =>
        (outcomes.get(traceId) ?? 'pending') !== 'pending' &&
        // About to start: next, with nothing going (a run holding the turn keeps it queued).
        !(current === null && queue[0]?.traceId === traceId && turns.holder() === null),
    );

  setHandler(takeRun, async (submission) => {
    const { traceId } = submission.input;
    await take(submission);
    await decided(traceId);
    const outcome = outcomes.get(traceId)!;
    if (typeof outcome === 'object') return { status: 'rejected', busyWith: outcome.rejected };
    const workflowId = completionWorkflowId(traceId);
    if (queue.some((q) => q.traceId === traceId)) return { status: 'queued', workflowId, runId: null };
    return { status: 'running', workflowId, runId: current?.input.traceId === traceId ? current.runId : null };
  });

  setHandler(admitRun, async (traceId) => {
    const aboutToStart = () => current === null && queue[0]?.traceId === traceId;
    await condition(() => (outcomes.get(traceId) ?? 'pending') !== 'pending' && !aboutToStart());
    const outcome = outcomes.get(traceId)!;
    if (typeof outcome === 'object') return { status: 'rejected', busyWith: outcome.rejected };
    const workflowId = completionWorkflowId(traceId);
    if (queue.some((q) => q.traceId === traceId)) return { status: 'queued', workflowId, runId: null };
    // The run is going (its run id once its workflow has started), or already over.
    if (current?.input.traceId === traceId) await condition(() => current?.input.traceId !== traceId || current.runId !== null);
    return { status: 'running', workflowId, runId: current?.input.traceId === traceId ? current.runId : null };
  });

  setHandler(cancelQueuedRun, async (traceId) => {
    const at = queue.findIndex((q) => q.traceId === traceId);
    if (at < 0) return false;
    const [queued] = queue.splice(at, 1);
    await cancelBeforeStart(queued!);
    return true;
  });

  setHandler(sessionRunsQuery, () => ({ running: current?.input.traceId ?? turns.holder(), queued: queue.map((q) => q.traceId) }));

  for (;;) {
    // Idle: the turn goes back, so that the session's next request starts its run alone.
    if (queue.length === 0) await turns.giveBack();
    const hasWork = await condition(() => queue.length > 0, IDLE_LINGER_MS);
    if (!hasWork) {
      await condition(allHandlersFinished);
      if (queue.length === 0) return await turns.giveBack();
    }
    // Runs that waited for a run holding the turn read the session's history as it left it (the
    // holder may have been unknown when they came: a store that failed).
    if (await turns.hold()) queue.splice(0, queue.length, ...queue.map((q) => ({ ...q, refreshHistory: true })));
    // Its runs may have left the queue while the turn was waited for (cancelled, or an interrupt's).
    if (queue.length === 0) continue;
    // A busy session's history stays short; a request waiting on a handler is never cut off.
    if ((runs >= RUNS_PER_EXECUTION || workflowInfo().continueAsNewSuggested) && allHandlersFinished()) {
      await continueAsNew<typeof sessionRunsWorkflow>({ ...state, queue });
    }
    const next = queue.shift()!;
    runs++;
    await runToEnd(next);
  }

  async function runToEnd(input: CompletionInput): Promise<void> {
    const run: CurrentRun = { input, scope: new CancellationScope(), runId: null, ended: false };
    current = run;
    const queuedMs = Math.max(0, Date.now() - input.requestedAt);
    const bound = input.limits.runTimeoutMs;
    try {
      await run.scope.run(async () => {
        const child = await startChild(completionWorkflow, {
          workflowId: completionWorkflowId(input.traceId),
          args: [input.refreshHistory ? { ...input, queuedMs } : input],
          // Runs outlive a session workflow an operator ends; cancelling the scope cancels the run.
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          ...(bound !== undefined ? { workflowExecutionTimeout: Math.max(1, bound - queuedMs) + backstopMarginMs } : {}),
          typedSearchAttributes: completionSearchAttributes(input),
          memo: completionMemo(input),
        });
        run.runId = child.firstExecutionRunId;
        await child.result();
      });
    } catch {
      // The run recorded its own end (failed or cancelled); one cancelled before it started did not.
      if (run.runId === null) await cancelBeforeStart(input);
    } finally {
      run.ended = true;
      current = null;
    }
  }

  async function cancelBeforeStart(input: CompletionInput): Promise<void> {
    await CancellationScope.nonCancellable(() =>
      recordCanceledRun({
        ctx: runContextOf(input),
        seq: input.firstSeq,
        question: input.question,
        answerSoFar: '',
        model: null,
        tokens: 0,
        requestedAt: input.requestedAt,
        beforeStart: true,
      }),
    );
  }
}

/**
 * The session's turn, shared with runs that take it alone (stores/session-turns.ts): who holds it as
 * this workflow knows, and the steps to learn it, wait for it, take it and give it back, one at a
 * time. Its steps ask for the SESSION_TURNS patch each time, not once at the start: an execution
 * from before turns existed replays without them (its holder is always null) and takes them up at
 * its first new workflow task, so that one lingering through a deployment shares the turn too.
 */
function createTurnKeeper(state: SessionRunsState) {
  const enabled = () => patched(SESSION_TURNS);
  const session = { tenantId: state.tenantId, sessionId: state.sessionId };
  let holding = false;
  /** A run that holds the turn, waited for until it ends. */
  let holder: { traceId: string; ended: Promise<void> } | null = null;
  /** Runs that said they gave the turn back (`turnReleased`). */
  const released = new Set<string>();
  /** The turn's steps run one after another: a take and a give-back never cross. */
  let steps: Promise<unknown> = Promise.resolve();
  const step = <T>(work: () => Promise<T>): Promise<T> => {
    const done = steps.then(work);
    steps = done.catch(() => undefined);
    return done;
  };

  /** Takes the turn, or learns which run holds it and starts waiting for that run's end. */
  const tryTake = () =>
    step(async () => {
      if (holding || holder !== null) return;
      const { going } = await takeSessionTurn(session);
      if (going === null) {
        holding = true;
        return;
      }
      const watched = {
        traceId: going,
        ended: untilGone(going).finally(() => {
          if (holder === watched) holder = null;
        }),
      };
      holder = watched;
    });

  /**
   * Settles once the run `traceId` no longer holds the turn: it said so (`turnReleased`), or a look
   * finds the turn given back, taken from a run that closed without giving it back, or from one
   * that has had no workflow for a minute (its request died): workflow time, not the API's clock.
   */
  async function untilGone(traceId: string): Promise<void> {
    const since = Date.now();
    let waitMs = HOLDER_POLL_FIRST_MS;
    for (;;) {
      if (await condition(() => released.has(traceId), waitMs)) return;
      const { gone } = await turnHolderGone({ sessionId: state.sessionId, traceId, heldForMs: Date.now() - since }).catch(() => ({
        gone: false,
      }));
      if (gone) return;
      waitMs = Date.now() - since > HOLDER_POLL_LONG_AFTER_MS ? HOLDER_POLL_LONG_MS : Math.min(waitMs * 2, HOLDER_POLL_MAX_MS);
    }
  }

  return {
    holder: () => holder?.traceId ?? null,

    noteReleased(traceId: string): void {
      released.add(traceId);
    },

    /**
     * Learns whether a run holds the turn (and takes the turn when nobody does). A store that fails
     * leaves it unknown: hold() still waits for such a run before this workflow starts one.
     */
    async learnHolder(): Promise<void> {
      if (enabled()) await tryTake().catch(() => undefined);
    },

    /**
     * Holds the turn, after every run that held it has ended; tries again while the store fails.
     * True when it waited for such a run.
     */
    async hold(): Promise<boolean> {
      let waited = false;
      if (!enabled()) return waited;
      while (!holding) {
        const taken = await tryTake().then(
          () => true,
          () => false,
        );
        if (holder !== null) {
          waited = true;
          await holder.ended.catch(() => undefined);
        } else if (!taken) await sleep(TURN_RETRY_MS);
      }
      return waited;
    },

    /**
     * Cancels the run that holds the turn and waits for its end; `rollback` removes its turn from
     * the session's history too. A run whose request has taken the turn but not started it yet
     * cannot be cancelled: the cancel is asked again until it has, or until the run is gone.
     */
    async cancelHolder(rollback: boolean): Promise<void> {
      const going = holder;
      if (going === null) return;
      while (holder === going) {
        const cancelled = await getExternalWorkflowHandle(completionWorkflowId(going.traceId))
          .cancel()
          .then(
            () => true,
            () => false,
          );
        if (cancelled) break;
        await condition(() => holder !== going, TURN_RETRY_MS);
      }
      await going.ended.catch(() => undefined);
      if (rollback) await removeRunTurn({ tenantId: state.tenantId, sessionId: state.sessionId, traceId: going.traceId });
    },

    /** Gives the turn back (an idle session); should that fail, the turn stays this workflow's, taken again next time. */
    async giveBack(): Promise<void> {
      if (!enabled()) return;
      await step(async () => {
        if (!holding) return;
        holding = false;
        await releaseSessionTurn({ sessionId: state.sessionId, holder: SESSION_WORKFLOW_HOLDER }).catch(() => undefined);
      });
    },
  };
}
