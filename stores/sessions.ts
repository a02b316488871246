import type { Db, Filter } from 'mongodb';
import { conflict, notFound } from '../common/errors';
import { newId, turnMessageIds } from '../common/ids';
import { startedEarly } from '../common/started-early';
import type { CreateMessageBody, CreateSessionBody, Message, Session, SessionListQuery } from '../common/schemas/sessions';
import { newEvent } from '../common/events';
import type { EventLog, OutboxHolder } from './event-log';
import { isDuplicateKey } from './mongo';
import { dateRange, findPage, type PageRequest } from './pagination';

interface SessionDoc extends OutboxHolder {
  tenant_id: string;
  agent_id: string;
  user_id: string;
  name: string | null;
  status: Session['status'];
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
  /** Sessions opened by the OpenAI-compatible API: what finds the conversation again (completion/openai-conversation.ts). */
  conversation_key?: string;
}

interface MessageDoc {
  _id: string;
  tenant_id: string;
  session_id: string;
  role: Message['role'];
  content: string;
  metadata: Record<string, string>;
  /** On a completion's answer: what the run spent, so a retried recording can repeat it exactly (not shown). */
  answered_by?: AnswerUsage;
  created_at: Date;
}

/**
 * The model that gave a completion's answer (null: a processor without one) and the run's tokens:
 * in all, and (absent on answers recorded before they were kept) input, output and the money.
 */
export interface AnswerUsage {
  model: string | null;
  tokens: number;
  inputTokens?: number;
  outputTokens?: number;
  amount?: number | null;
}

const presentSession = (d: SessionDoc): Session => ({
  session_id: d._id,
  agent_id: d.agent_id,
  tenant_id: d.tenant_id,
  user_id: d.user_id,
  name: d.name,
  status: d.status,
  metadata: d.metadata,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
  archived_at: d.archived_at?.toISOString() ?? null,
});

const presentMessage = (d: MessageDoc): Message => ({
  message_id: d._id,
  session_id: d.session_id,
  role: d.role,
  content: d.content,
  metadata: d.metadata,
  created_at: d.created_at.toISOString(),
});

const NO_OUTBOX = { projection: { outbox: 0 } } as const;

/** A turn as the model is given it. */
export interface MemoryTurn {
  role: 'user' | 'assistant' | 'system';
  content: string;
  /** The completion that wrote it (absent on turns recorded before, and on messages added by hand). */
  trace_id?: string;
}

/**
 * The tail of a session's conversation, one document per session (`_id` = session id), so a
 * completion reads its context with one lookup instead of a scan of the message log.
 */
interface MemoryDoc {
  _id: string;
  tenant_id: string;
  turns: MemoryTurn[];
  updated_at: Date;
}

/** Turns kept in a session's memory document; what a completion reads of them is bounded again by configuration. */
const MEMORY_TURNS = 100;

export interface TurnMessage {
  role: 'user' | 'assistant';
  content: string;
  metadata: Record<string, string>;
  answeredBy?: AnswerUsage;
}

export function createSessionStore(db: Db, eventLog: EventLog) {
  const sessions = db.collection<SessionDoc>('sessions');
  const messages = db.collection<MessageDoc>('messages');
  const memory = db.collection<MemoryDoc>('session_memory');

  // One write per turn. MongoDB keeps the newest MEMORY_TURNS ($slice); FerretDB v1 ignores $slice,
  // so recentTurns trims a document that has grown past twice that. A turn already remembered (a
  // retried recording) matches no document, and the upsert's insert then fails on the taken id.
  async function remember(tenantId: string, sessionId: string, turns: MemoryTurn[], traceId?: string): Promise<void> {
    try {
      await memory.updateOne(
        { _id: sessionId, ...(traceId !== undefined ? { 'turns.trace_id': { $ne: traceId } } : {}) },
        { $push: { turns: { $each: turns, $slice: -MEMORY_TURNS } }, $set: { tenant_id: tenantId, updated_at: new Date() } },
        { upsert: true },
      );
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async function getDoc(tenantId: string, sessionId: string): Promise<SessionDoc> {
    const doc = await sessions.findOne({ _id: sessionId, tenant_id: tenantId }, NO_OUTBOX);
    if (!doc) throw notFound('session', sessionId);
    return doc;
  }

  const archivedConflict = (sessionId: string) =>
    conflict(`session ${sessionId} is archived and accepts no new messages or completions`, {
      session_id: sessionId,
      status: 'archived',
    });

  return {
    sessions,
    messages,

    /**
     * The session and its `session.created` event are one insert. `sessionId` (agent tasks derive
     * theirs from the workflow, so a retry cannot open a second session) fails with a duplicate
     * key when taken.
     */
    async create(
      tenantId: string,
      agentId: string,
      userId: string,
      body: CreateSessionBody,
      { sessionId, conversationKey }: { sessionId?: string; conversationKey?: string } = {},
    ): Promise<Session> {
      const now = new Date();
      const id = sessionId ?? newId('ses');
      const event = newEvent(
        'session.created',
        tenantId,
        id,
        { session_id: id, tenant_id: tenantId, user_id: userId, agent_id: agentId },
        now,
      );
      const doc: SessionDoc = {
        _id: id,
        tenant_id: tenantId,
        agent_id: agentId,
        user_id: userId,
        name: body.name ?? null,
        status: 'active',
        metadata: body.metadata,
        created_at: now,
        updated_at: now,
        archived_at: null,
        ...(conversationKey !== undefined ? { conversation_key: conversationKey } : {}),
        outbox: [event],
      };
      await sessions.insertOne(doc);
      await eventLog.flush('sessions', id, [event]);
      return presentSession(doc);
    },

    /** The tenant's sessions, newest first, narrowed by agent, user, status and creation time. */
    list(tenantId: string, query: SessionListQuery) {
      const filter: Filter<SessionDoc> = { tenant_id: tenantId };
      if (query.agent_id) filter.agent_id = query.agent_id;
      if (query.user_id) filter.user_id = query.user_id;
      if (query.status) filter.status = query.status;
      const created = dateRange(query);
      if (created) filter.created_at = created;
      return findPage(sessions, filter, query, presentSession);
    },

    get: async (tenantId: string, sessionId: string) => presentSession(await getDoc(tenantId, sessionId)),

    /** The session must be active: archived sessions answer 10005. */
    async getActive(tenantId: string, sessionId: string): Promise<Session> {
      const doc = await getDoc(tenantId, sessionId);
      if (doc.status === 'archived') throw archivedConflict(sessionId);
      return presentSession(doc);
    },

    /** Archiving twice is harmless: the second call changes nothing and records no second event. */
    async archive(tenantId: string, sessionId: string): Promise<Session> {
      const now = new Date();
      const event = newEvent('session.archived', tenantId, sessionId, { session_id: sessionId }, now);
      const { modifiedCount } = await sessions.updateOne(
        { _id: sessionId, tenant_id: tenantId, status: 'active' },
        {
          $set: { status: 'archived', archived_at: now, updated_at: now },
          $push: { outbox: event },
        },
      );
      if (modifiedCount === 1) await eventLog.flush('sessions', sessionId, [event]);
      return presentSession(await getDoc(tenantId, sessionId));
    },

    async delete(tenantId: string, sessionId: string): Promise<void> {
      const doc = await sessions.findOne({ _id: sessionId, tenant_id: tenantId });
      if (!doc) throw notFound('session', sessionId);
      // Events still waiting in the outbox are recorded before their document goes.
      await eventLog.flush('sessions', sessionId, doc.outbox);
      await sessions.deleteOne({ _id: sessionId, tenant_id: tenantId });
      await messages.deleteMany({ session_id: sessionId, tenant_id: tenantId });
      await memory.deleteOne({ _id: sessionId, tenant_id: tenantId });
    },

    /** Used when an agent is deleted: its sessions and their messages go too. */
    async deleteForAgent(tenantId: string, agentId: string): Promise<void> {
      const docs = await sessions.find({ tenant_id: tenantId, agent_id: agentId }, { projection: { outbox: 1 } }).toArray();
      for (const doc of docs) {
        if (doc.outbox.length > 0) await eventLog.flush('sessions', doc._id, doc.outbox);
      }
      const ids = docs.map((d) => d._id);
      await messages.deleteMany({ tenant_id: tenantId, session_id: { $in: ids } });
      await memory.deleteMany({ tenant_id: tenantId, _id: { $in: ids } });
      await sessions.deleteMany({ tenant_id: tenantId, agent_id: agentId });
    },

    /** Recorded only: the agent is not advanced. */
    async addMessage(tenantId: string, sessionId: string, body: CreateMessageBody): Promise<Message> {
      const session = await getDoc(tenantId, sessionId);
      if (session.status === 'archived') throw archivedConflict(sessionId);
      const doc: MessageDoc = {
        _id: newId('msg'),
        tenant_id: tenantId,
        session_id: sessionId,
        role: body.role,
        content: body.content,
        metadata: body.metadata,
        created_at: new Date(),
      };
      await messages.insertOne(doc);
      if (doc.role !== 'tool') await remember(tenantId, sessionId, [{ role: doc.role, content: doc.content }]);
      return presentMessage(doc);
    },

    /** The active sessions of a conversation of the OpenAI-compatible API (by its key), newest first. */
    async conversationSessions(tenantId: string, agentId: string, key: string, limit: number): Promise<string[]> {
      const docs = await sessions
        .find(
          { tenant_id: tenantId, conversation_key: key, agent_id: agentId, status: 'active' },
          { projection: { _id: 1 }, sort: { created_at: -1 }, limit },
        )
        .toArray();
      return docs.map((d) => d._id);
    },

    /** Every turn the session's memory keeps, oldest first; `trimmed`: older ones were let go. */
    async conversation(tenantId: string, sessionId: string): Promise<{ turns: MemoryTurn[]; trimmed: boolean }> {
      const doc = await memory.findOne({ _id: sessionId, tenant_id: tenantId });
      const turns = doc?.turns.slice(-MEMORY_TURNS) ?? [];
      return { turns, trimmed: (doc?.turns.length ?? 0) >= MEMORY_TURNS };
    },

    /**
     * Messages a caller brings from elsewhere (the history of a conversation that started outside
     * the service), recorded in order with one write each to the log and the memory: the next run
     * reads them like its own. Only the newest MEMORY_TURNS are kept.
     */
    async importTurns(tenantId: string, sessionId: string, turns: { role: MemoryTurn['role']; content: string }[]): Promise<void> {
      const kept = turns.slice(-MEMORY_TURNS);
      if (kept.length === 0) return;
      const at = Date.now();
      await messages.insertMany(
        kept.map((turn, i) => ({
          _id: newId('msg'),
          tenant_id: tenantId,
          session_id: sessionId,
          role: turn.role,
          content: turn.content,
          metadata: { imported: 'true' },
          created_at: new Date(at + i),
        })),
      );
      await remember(tenantId, sessionId, kept);
    },

    /** The newest turns, oldest first: at most `maxMessages` of them and `maxChars` characters. */
    async recentTurns(
      tenantId: string,
      sessionId: string,
      { maxMessages, maxChars }: { maxMessages: number; maxChars: number },
    ): Promise<MemoryTurn[]> {
      const doc = await memory.findOne({ _id: sessionId, tenant_id: tenantId });
      if (doc && doc.turns.length > 2 * MEMORY_TURNS) {
        await memory.updateOne({ _id: sessionId }, { $set: { turns: doc.turns.slice(-MEMORY_TURNS) } });
      }
      const picked: MemoryTurn[] = [];
      let chars = 0;
      for (const turn of [...(doc?.turns ?? [])].reverse()) {
        if (picked.length >= maxMessages || chars + turn.content.length > maxChars) break;
        picked.push(turn);
        chars += turn.content.length;
      }
      return picked.reverse();
    },

    /** A completion's question and answer: into the message log (ids derived from the run, so a retry adds nothing) and the memory. */
    async recordTurn(tenantId: string, sessionId: string, traceId: string, turn: TurnMessage[], at: Date): Promise<string[]> {
      const ids = turnMessageIds(traceId, turn.length);
      const docs: MessageDoc[] = turn.map((m, i) => ({
        _id: ids[i]!,
        tenant_id: tenantId,
        session_id: sessionId,
        role: m.role,
        content: m.content,
        metadata: { ...m.metadata, trace_id: traceId },
        ...(m.answeredBy ? { answered_by: m.answeredBy } : {}),
        created_at: new Date(at.getTime() + i),
      }));
      // Both writes at once: this is on every completion's path. Each keeps a turn once: the message
      // log by derived ids, the memory by the turn's trace id.
      const remembered = startedEarly(
        remember(
          tenantId,
          sessionId,
          turn.map(({ role, content }) => ({ role, content, trace_id: traceId })),
          traceId,
        ),
      );
      try {
        await messages.insertMany(docs, { ordered: false });
      } catch (err) {
        await remembered.catch(() => undefined);
        if (!isDuplicateKey(err)) throw err;
        return ids;
      }
      await remembered;
      return ids;
    },

    /** A completion's turn leaves the message log and the memory (a rolled-back run). */
    async removeTurn(tenantId: string, sessionId: string, traceId: string): Promise<void> {
      // Read, filter and write back (FerretDB v1 has no $pull by condition); the session's runs are
      // serialised by its workflow, so no other turn is written meanwhile.
      const forget = async () => {
        const doc = await memory.findOne({ _id: sessionId, tenant_id: tenantId });
        if (!doc?.turns.some((t) => t.trace_id === traceId)) return;
        await memory.updateOne({ _id: sessionId }, { $set: { turns: doc.turns.filter((t) => t.trace_id !== traceId) } });
      };
      await Promise.all([
        messages.deleteMany({ _id: { $in: turnMessageIds(traceId, 2) }, tenant_id: tenantId, session_id: sessionId }),
        forget(),
      ]);
    },

    /** The answer a completion recorded in the session, with what it spent; null when none was recorded. */
    async recordedAnswer(
      tenantId: string,
      sessionId: string,
      traceId: string,
    ): Promise<{ content: string; answeredBy: AnswerUsage } | null> {
      const doc = await messages.findOne({ _id: turnMessageIds(traceId, 2)[1]!, tenant_id: tenantId, session_id: sessionId });
      return doc?.answered_by ? { content: doc.content, answeredBy: doc.answered_by } : null;
    },

    async getMessage(tenantId: string, sessionId: string, messageId: string): Promise<Message> {
      const doc = await messages.findOne({ _id: messageId, tenant_id: tenantId, session_id: sessionId });
      if (!doc) throw notFound('message', messageId);
      return presentMessage(doc);
    },

    async listMessages(tenantId: string, sessionId: string, page: PageRequest) {
      await getDoc(tenantId, sessionId);
      return findPage(messages, { tenant_id: tenantId, session_id: sessionId }, page, presentMessage, {
        created_at: 1,
        _id: 1,
      });
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
