import { SESSION_WORKFLOW_HOLDER, type SessionTurnStore } from '../stores/session-turns';

/** How a run's workflow stands for a session waiting on it (commands/run-watch.ts answers it). */
export interface RunWatch {
  state(traceId: string): Promise<'running' | 'closed' | 'missing'>;
  /** Tells the session's workflow, if it waits, that the run gave the turn back. */
  released(sessionId: string, traceId: string): Promise<void>;
}

export interface SessionTurnActivityDeps {
  sessionTurns: SessionTurnStore;
  runWatch: RunWatch;
}

/**
 * How long a turn's holder may have no workflow before the turn is taken from it: its request took
 * the turn and then failed to start the run without giving the turn back (its process died). The
 * start itself gives up two minutes after the take (commands/completions.ts,
 * TURN_START_DEADLINE_MS), which leaves a minute for the hosts' clocks to differ.
 */
const HOLDER_WITHOUT_WORKFLOW_MS = 180_000;
/** Takes of a turn that keeps being given back between the insert and the read: then the activity tries again. */
const TAKE_ATTEMPTS = 5;

/** The activities a session's workflow uses to share its session's turn with runs that took it alone (stores/session-turns.ts). */
export function createSessionTurnActivities({ sessionTurns, runWatch }: SessionTurnActivityDeps) {
  return {
    /**
     * Takes the session's turn for its workflow: `going` is null once the workflow holds it (it may
     * have held it already, in an execution before a continue-as-new), else the run that holds it.
     * A holder whose workflow closed without giving the turn back (terminated, timed out) gives
     * nothing back any more, so its turn goes; one with no workflow yet is `going`, for
     * turnHolderGone to judge.
     */
    async takeSessionTurn({ tenantId, sessionId }: { tenantId: string; sessionId: string }): Promise<{ going: string | null }> {
      for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
        if (await sessionTurns.take(tenantId, sessionId, SESSION_WORKFLOW_HOLDER)) return { going: null };
        const held = await sessionTurns.holderOf(sessionId);
        if (held === null) continue;
        if (held.holder === SESSION_WORKFLOW_HOLDER) return { going: null };
        if ((await runWatch.state(held.holder)) !== 'closed') return { going: held.holder };
        await sessionTurns.release(sessionId, held.holder);
      }
      throw new Error(`the turn of session ${sessionId} kept changing hands`);
    },

    /** Gives a session's turn back; only `holder`'s own turn goes. */
    async releaseSessionTurn({ sessionId, holder }: { sessionId: string; holder: string }): Promise<void> {
      await sessionTurns.release(sessionId, holder);
    },

    /**
     * Whether the run `traceId` no longer holds the session's turn: given back, or taken from it here
     * when its workflow closed without giving it back (terminated, timed out), or when it has had no
     * workflow for HOLDER_WITHOUT_WORKFLOW_MS, counted from the take or from the session workflow's
     * first sight of it (`heldForMs`, the workflow's own time), whichever is longer.
     */
    async turnHolderGone({
      sessionId,
      traceId,
      heldForMs,
    }: {
      sessionId: string;
      traceId: string;
      heldForMs: number;
    }): Promise<{ gone: boolean }> {
      const held = await sessionTurns.holderOf(sessionId);
      if (held?.holder !== traceId) return { gone: true };
      const state = await runWatch.state(traceId);
      const withoutWorkflowMs = Math.max(heldForMs, Date.now() - held.since.getTime());
      if (state === 'running' || (state === 'missing' && withoutWorkflowMs <= HOLDER_WITHOUT_WORKFLOW_MS)) return { gone: false };
      await sessionTurns.release(sessionId, traceId);
      return { gone: true };
    },
  };
}
