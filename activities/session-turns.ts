import { Context } from '@temporalio/activity';
import { SESSION_WORKFLOW_HOLDER, type SessionTurnStore } from '../stores/session-turns';
import { whileHeartbeating } from './heartbeat';

/** How a run's workflow stands for a session waiting on it (commands/run-watch.ts answers it). */
export interface RunWatch {
  state(traceId: string): Promise<'running' | 'closed' | 'missing'>;
  closed(traceId: string, signal: AbortSignal): Promise<'closed' | 'missing'>;
}

export interface SessionTurnActivityDeps {
  sessionTurns: SessionTurnStore;
  runWatch: RunWatch;
}

/**
 * How long a turn's holder may have no workflow before the turn is taken from it: its request took
 * the turn and then failed to start the run without giving the turn back (its process died). The
 * start itself gives up long before (commands/completions.ts, TURN_START_DEADLINE_MS).
 */
const HOLDER_WITHOUT_WORKFLOW_MS = 60_000;
/** How often a holder that has no workflow yet is looked at again. */
const MISSING_HOLDER_POLL_MS = 200;
/** Takes of a turn that keeps being given back between the insert and the read: then the activity tries again. */
const TAKE_ATTEMPTS = 5;

/** The activities a session's workflow uses to share its session's turn with runs that took it alone (stores/session-turns.ts). */
export function createSessionTurnActivities({ sessionTurns, runWatch }: SessionTurnActivityDeps) {
  /**
   * Whether a run's turn is left over: its workflow closed without giving the turn back (terminated,
   * timed out), or it never got one. A closed run gives nothing back any more, so the turn can go.
   */
  const isLeftOver = async (traceId: string, since: Date): Promise<boolean> => {
    const state = await runWatch.state(traceId);
    return state === 'closed' || (state === 'missing' && Date.now() - since.getTime() > HOLDER_WITHOUT_WORKFLOW_MS);
  };

  return {
    /**
     * Takes the session's turn for its workflow: `going` is null once the workflow holds it (it may
     * have held it already, in an execution before a continue-as-new), else the run that holds it.
     */
    async takeSessionTurn({ tenantId, sessionId }: { tenantId: string; sessionId: string }): Promise<{ going: string | null }> {
      for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
        if (await sessionTurns.take(tenantId, sessionId, SESSION_WORKFLOW_HOLDER)) return { going: null };
        const held = await sessionTurns.holderOf(sessionId);
        if (held === null) continue;
        if (held.holder === SESSION_WORKFLOW_HOLDER) return { going: null };
        if (!(await isLeftOver(held.holder, held.since))) return { going: held.holder };
        await sessionTurns.release(sessionId, held.holder);
      }
      throw new Error(`the turn of session ${sessionId} kept changing hands`);
    },

    /** Gives a session's turn back; only `holder`'s own turn goes. */
    async releaseSessionTurn({ sessionId, holder }: { sessionId: string; holder: string }): Promise<void> {
      await sessionTurns.release(sessionId, holder);
    },

    /**
     * Settles once the run holding the session's turn has ended and the turn is free of it: a run
     * gives its turn back as it ends; one that could not (terminated, timed out, or never started
     * by a request that died) loses it here.
     */
    async awaitTurnHolder({ sessionId, traceId }: { sessionId: string; traceId: string }): Promise<void> {
      const { cancellationSignal } = Context.current();
      await whileHeartbeating(async () => {
        for (;;) {
          if ((await runWatch.closed(traceId, cancellationSignal)) === 'closed') return sessionTurns.release(sessionId, traceId);
          // No workflow (yet): the request that took the turn is starting it, or died before it could.
          const held = await sessionTurns.holderOf(sessionId);
          if (held?.holder !== traceId) return;
          if (await isLeftOver(traceId, held.since)) return sessionTurns.release(sessionId, traceId);
          await Context.current().sleep(MISSING_HOLDER_POLL_MS);
        }
      });
    },
  };
}
