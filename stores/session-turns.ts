import type { Db } from 'mongodb';
import { SESSION_WORKFLOW_HOLDER } from '../common/workflow-ids';
import { isDuplicateKey } from './mongo';

export { SESSION_WORKFLOW_HOLDER };

/**
 * Who holds a session's turn: the one run it may have going, or its session workflow.
 *
 * A completion of an idle session starts its own workflow at once, without a round trip through the
 * session's workflow (workflows/session-runs.ts), when its request can take the session's turn: a
 * document of collection `session_turns` (`_id` = session id) that only an insert creates, so that
 * of two requests racing for an idle session one wins. The run gives its turn back when it ends.
 * A session workflow with work holds the turn itself; it finds a
 * run holding it, waits for that run's end (or cancels it, for `interrupt` and `rollback`), then
 * takes the turn, and gives it back once it is idle again (its holder: SESSION_WORKFLOW_HOLDER).
 *
 * Nothing but an insert changes a turn's holder, and each holder removes only its own document:
 * FerretDB applies a conditional update or delete by reading, filtering and then writing by `_id`,
 * so a holder that another writer could change might be removed by the wrong one.
 */

interface TurnDoc {
  _id: string;
  tenant_id: string;
  /** A run's trace id, or SESSION_WORKFLOW_HOLDER. */
  holder: string;
  since: Date;
}

export function createSessionTurnStore(db: Db) {
  const turns = db.collection<TurnDoc>('session_turns');
  return {
    /** Takes the session's turn for `holder`; false when someone holds it. */
    async take(tenantId: string, sessionId: string, holder: string): Promise<boolean> {
      try {
        await turns.insertOne({ _id: sessionId, tenant_id: tenantId, holder, since: new Date() });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },

    /** Who holds the session's turn, and since when; null when nobody does. */
    async holderOf(sessionId: string): Promise<{ holder: string; since: Date } | null> {
      const doc = await turns.findOne({ _id: sessionId }, { projection: { holder: 1, since: 1 } });
      return doc ? { holder: doc.holder, since: doc.since } : null;
    },

    /** Gives the turn back: only the holder's own document goes. */
    async release(sessionId: string, holder: string): Promise<void> {
      await turns.deleteOne({ _id: sessionId, holder });
    },
  };
}

export type SessionTurnStore = ReturnType<typeof createSessionTurnStore>;
