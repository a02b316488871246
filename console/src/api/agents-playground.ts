/**
 * Data hooks of an agent's playground: its sessions, a session's transcript, and the chat itself: a
 * streamed completion (`client.completions.stream`) turned into turns that grow event by event,
 * with its thinking phases, tool calls and results, approvals (decided with
 * `client.runs.approvals.decide`), cancel (`client.runs.cancel`), cost and stop reason, and the run's
 * record at the end (its Temporal UI link).
 */
import {
  type CompletionRun,
  type CompletionStream,
  ComboError,
  type Cost,
  type Message,
  type Session,
  type StreamEvent,
  type StreamEventDone,
} from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from './client';

const SESSIONS_SHOWN = 100;

/** The agent's newest sessions (at most 100), to pick one to chat on. */
export function useAgentSessions(agentId: string) {
  const client = useApi();
  return useQuery({
    queryKey: ['agents', 'sessions', agentId],
    queryFn: () => client.sessions.list(agentId, { page_size: SESSIONS_SHOWN }),
  });
}

/** A session's last messages (at most 100, oldest first), read once when it is picked. */
export function useTranscript(sessionId: string | null, pick: number) {
  const client = useApi();
  return useQuery({
    queryKey: ['agents', 'transcript', sessionId, pick],
    enabled: sessionId !== null,
    queryFn: async (): Promise<{ messages: Message[]; total: number }> => {
      const first = await client.sessions.messages.list(sessionId!, { page_size: 100 });
      const lastPage = Math.ceil(first.total / 100);
      if (lastPage <= 1) return { messages: first.items, total: first.total };
      // Messages are oldest first: the newest 100 are on the last page and the one before it.
      const [before, last] = await Promise.all(
        [lastPage - 1, lastPage].map((page) => client.sessions.messages.list(sessionId!, { page, page_size: 100 })),
      );
      return { messages: [...before!.items, ...last!.items].slice(-100), total: first.total };
    },
    // The live turns are shown below it: never refetched while the session stays picked.
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
  });
}

type ApprovalState = 'pending' | 'approved' | 'rejected' | 'timed_out' | 'canceled';

/** What a run did on its way to the answer, in the order it happened. */
export type Activity =
  | { kind: 'thinking'; key: string; phase: string; step?: number; attempt?: number; route?: string }
  | { kind: 'tool'; key: string; tool: string; args: Record<string, unknown>; done: boolean; result?: unknown }
  | {
      kind: 'approval';
      key: string;
      approvalId: string;
      tool: string;
      args: Record<string, unknown>;
      expiresAt: string;
      status: ApprovalState;
      comment: string | null;
    };

type TurnState = 'sending' | 'running' | 'waiting_approval' | 'ended';

export interface Turn {
  id: number;
  question: string;
  sessionId: string;
  traceId?: string;
  route?: string;
  activity: Activity[];
  /** The whole answer so far (each `message` event carries it). */
  answer: string;
  state: TurnState;
  stopReason?: StreamEventDone['stop_reason'];
  cost?: Cost;
  /** The run's failure (`error` event) or the request's refusal. */
  error?: unknown;
  /** The run's record, read once it ended (its Temporal UI link). */
  run?: CompletionRun;
}

/** A turn with one event applied. */
function applyEvent(turn: Turn, event: StreamEvent): Turn {
  const key = event.id || `${turn.activity.length}`;
  switch (event.event) {
    case 'thinking': {
      const data = event.data;
      const thinking: Activity = { kind: 'thinking', key, phase: data.phase };
      if (data.step !== undefined) thinking.step = data.step;
      if (data.attempt !== undefined) thinking.attempt = data.attempt;
      if (data.route !== undefined) thinking.route = data.route;
      return {
        ...turn,
        state: turn.state === 'sending' ? 'running' : turn.state,
        traceId: turn.traceId ?? data.trace_id,
        route: data.route ?? turn.route,
        activity: [...turn.activity, thinking],
      };
    }
    case 'tool_call':
      return { ...turn, activity: [...turn.activity, { kind: 'tool', key, tool: event.data.tool, args: event.data.args, done: false }] };
    case 'tool_result': {
      // The result of the earliest call of that tool still without one.
      const at = turn.activity.findIndex((a) => a.kind === 'tool' && a.tool === event.data.tool && !a.done);
      if (at < 0) return turn;
      const activity = turn.activity.slice();
      activity[at] = { ...(activity[at] as Extract<Activity, { kind: 'tool' }>), done: true, result: event.data.result };
      return { ...turn, activity };
    }
    case 'approval_required':
      return {
        ...turn,
        state: 'waiting_approval',
        activity: [
          ...turn.activity,
          {
            kind: 'approval',
            key,
            approvalId: event.data.approval_id,
            tool: event.data.tool,
            args: event.data.args,
            expiresAt: event.data.expires_at,
            status: 'pending',
            comment: null,
          },
        ],
      };
    case 'approval_decided': {
      const activity = turn.activity.map((a) =>
        a.kind === 'approval' && a.approvalId === event.data.approval_id
          ? { ...a, status: event.data.status, comment: event.data.comment }
          : a,
      );
      const waiting = activity.some((a) => a.kind === 'approval' && a.status === 'pending');
      return { ...turn, activity, state: waiting ? 'waiting_approval' : 'running' };
    }
    case 'message':
      return {
        ...turn,
        answer: event.data.answer ?? turn.answer + (event.data.delta ?? ''),
        state: turn.state === 'sending' ? 'running' : turn.state,
      };
    case 'error':
      return {
        ...turn,
        error: new ComboError(event.data.message, { code: event.data.code, ...(turn.traceId ? { traceId: turn.traceId } : {}) }),
      };
    case 'done': {
      const ended: Turn = { ...turn, state: 'ended', traceId: turn.traceId ?? event.data.trace_id };
      if (event.data.stop_reason !== undefined) ended.stopReason = event.data.stop_reason;
      if (event.data.cost !== undefined) ended.cost = event.data.cost;
      // Approvals nobody decided before the run ended.
      ended.activity = turn.activity.map((a) => (a.kind === 'approval' && a.status === 'pending' ? { ...a, status: 'canceled' } : a));
      return ended;
    }
    default:
      return turn;
  }
}

export interface ChatOptions {
  /** The session to ask on; null: a new one is created first. */
  sessionId: string | null;
  /** `@scenario@processor@mode@`; undefined: the agent's default route. */
  route?: string;
  /** Told the session a new one was created for the question. */
  onSession?: (session: Session) => void;
}

/**
 * The chat of a playground: `send` asks with a streamed completion and grows its turn event by
 * event; `resume` follows a picked session's run still going; `cancel` cancels the running run;
 * `decide` approves or rejects a pending tool call.
 * Leaving the page closes the stream (the run goes on: Cancel cancels it).
 */
export function useChat(agentId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  const [turns, setTurns] = useState<Turn[]>([]);
  const nextId = useRef(1);
  const streaming = useRef<AbortController | null>(null);

  useEffect(() => () => streaming.current?.abort(), []);

  const update = useCallback((id: number, change: (turn: Turn) => Turn) => {
    setTurns((all) => all.map((turn) => (turn.id === id ? change(turn) : turn)));
  }, []);

  /** Starts a turn: closes the stream still open, if any, and gives the new turn's id and its stream's controller. */
  const begin = (turn: Omit<Turn, 'id'>) => {
    const id = nextId.current++;
    const controller = new AbortController();
    streaming.current?.abort();
    streaming.current = controller;
    setTurns((all) => [...all, { ...turn, id }]);
    return { id, controller };
  };

  const refreshSessions = () => void queryClient.invalidateQueries({ queryKey: ['agents', 'sessions', agentId] });

  /** Grows the turn with the stream's events to `done`, then reads the run's record (its Temporal UI link). */
  const follow = async (id: number, controller: AbortController, open: () => Promise<CompletionStream>) => {
    let traceId: string | undefined;
    try {
      const stream = await open();
      for await (const event of stream) {
        traceId ??= stream.traceId;
        update(id, (turn) => applyEvent(turn, event));
      }
      traceId ??= stream.traceId;
    } catch (error) {
      // Left (another page, another question): the session made for it is listed all the same.
      if (controller.signal.aborted) return refreshSessions();
      update(id, (turn) => ({ ...turn, state: 'ended', error }));
    } finally {
      if (streaming.current === controller) streaming.current = null;
    }
    refreshSessions();
    if (traceId) {
      const run = await client.runs.get(traceId).catch(() => undefined);
      if (run) update(id, (turn) => ({ ...turn, run }));
    }
  };

  /** Asks `question` with a streamed completion (on a new session when `sessionId` is null). */
  const send = async (question: string, options: ChatOptions) => {
    const { id, controller } = begin({ question, sessionId: options.sessionId ?? '', activity: [], answer: '', state: 'sending' });
    await follow(id, controller, async () => {
      let sessionId = options.sessionId;
      if (sessionId === null) {
        const session = await client.sessions.create(agentId, {});
        sessionId = session.session_id;
        // Listed at once, so that coming back while its run goes can pick it again.
        refreshSessions();
        options.onSession?.(session);
        update(id, (turn) => ({ ...turn, sessionId: session.session_id }));
      }
      return client.completions.stream(
        agentId,
        { session_id: sessionId, question, ...(options.route ? { route: options.route } : {}) },
        { signal: controller.signal, maxRetries: 0 },
      );
    });
  };

  /**
   * A session picked while its newest run is still going (or waiting for an approval): that run is
   * followed through its events from the start, as a turn of its own.
   */
  const resume = async (sessionId: string) => {
    const controller = new AbortController();
    streaming.current?.abort();
    streaming.current = controller;
    const newest = await client.runs.listForSession(sessionId, { page_size: 1 }, { signal: controller.signal }).catch(() => undefined);
    const run = newest?.items[0];
    if (controller.signal.aborted || !run || ['completed', 'failed', 'canceled'].includes(run.status)) return;
    const turn = begin({ question: '', sessionId, traceId: run.trace_id, route: run.route, activity: [], answer: '', state: 'running' });
    await follow(turn.id, turn.controller, () => Promise.resolve(client.runs.events(run.trace_id, {}, { signal: turn.controller.signal })));
  };

  const cancel = useMutation({ mutationFn: (traceId: string) => client.runs.cancel(traceId) });

  const decide = useMutation({
    mutationFn: (input: { turnId: number; traceId: string; approvalId: string; decision: 'approve' | 'reject'; comment: string }) =>
      client.runs.approvals.decide(input.traceId, input.approvalId, {
        decision: input.decision,
        ...(input.comment.trim() ? { comment: input.comment.trim() } : {}),
      }),
    onSuccess: ({ approval }, { turnId }) =>
      update(turnId, (turn) => ({
        ...turn,
        activity: turn.activity.map((a) =>
          a.kind === 'approval' && a.approvalId === approval.approval_id ? { ...a, status: approval.status, comment: approval.comment } : a,
        ),
      })),
  });

  /** Forgets the turns shown (another session was picked); a stream still open is closed. */
  const reset = () => {
    streaming.current?.abort();
    streaming.current = null;
    setTurns([]);
  };

  const busy = turns.some((turn) => turn.state !== 'ended');
  return { turns, send, resume, cancel, decide, reset, busy };
}
