import {
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  ParentClosePolicy,
  proxyLocalActivities,
  setHandler,
  startChild,
  workflowInfo,
  allHandlersFinished,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { MultitaskStrategy } from '../common/schemas/agents';
import { completionMemo, completionSearchAttributes } from '../common/search-attributes';
import { NOTHING_SPENT } from '../common/run-spend';
import { completionWorkflowId } from '../common/workflow-ids';
import { type CompletionInput, runContextOf } from '../completion/run-input';
import { completionWorkflow } from './completion';
import { createTurnKeeper } from './session-turn-keeper';

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

const { recordCanceledRun, removeRunTurn, recordRejectedRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

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
        spent: NOTHING_SPENT,
        requestedAt: input.requestedAt,
        beforeStart: true,
      }),
    );
  }
}
