import { condition, getExternalWorkflowHandle, patched, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { completionWorkflowId, SESSION_WORKFLOW_HOLDER } from '../common/workflow-ids';

const { removeRunTurn, takeSessionTurn, releaseSessionTurn, turnHolderGone } = proxyLocalActivities<Activities>({
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

/**
 * The session's turn, shared with runs that take it alone (stores/session-turns.ts): who holds it as
 * this workflow knows, and the steps to learn it, wait for it, take it and give it back, one at a
 * time. Its steps ask for the SESSION_TURNS patch each time, not once at the start: an execution
 * from before turns existed replays without them (its holder is always null) and takes them up at
 * its first new workflow task, so that one lingering through a deployment shares the turn too.
 */
export function createTurnKeeper(state: { tenantId: string; sessionId: string }) {
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
   * that has had no workflow for three minutes (its request died), counted by the longer of the API's
   * clock since the take and this workflow's own time since its first look.
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
