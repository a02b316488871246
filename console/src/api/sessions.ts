/**
 * Data hooks of Sessions & runs: the tenant's runs (filtered on the server), sessions by agent, a
 * session and its transcript and runs, a run with its stored event stream (followed live while the
 * run goes on), cancelling a run and deciding its approvals.
 */
import type { ApprovalDecisionRequest, CompletionRun, RunKind, RunStatus, StreamEvent } from '@combo/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useApi } from './client';
import { usePagedList } from './paging';

const LIVE: ReadonlySet<RunStatus> = new Set<RunStatus>(['queued', 'running', 'waiting_approval']);
/** The run has not ended: it may be cancelled, and its events are followed live. */
export const isLive = (run: Pick<CompletionRun, 'status'>): boolean => LIVE.has(run.status);

export interface RunFilter {
  status?: RunStatus;
  kind?: RunKind;
  /** ISO 8601: runs created at or after. */
  since?: string;
  /** ISO 8601: runs created before. */
  until?: string;
}

const RUNS = ['runs'] as const;

/** The tenant's runs, newest first (`GET /v1/combo/completions`). */
export function useRuns(filter: RunFilter) {
  const client = useApi();
  return usePagedList<CompletionRun>([...RUNS, 'tenant', filter], (page) => client.runs.list({ ...page, ...filter }));
}

/** A session's runs, newest first (`GET /v1/combo/sessions/{session_id}/completions`). */
export function useSessionRuns(sessionId: string) {
  const client = useApi();
  return usePagedList<CompletionRun>([...RUNS, 'session', sessionId], (page) => client.runs.listForSession(sessionId, page), 10);
}

/** A run's record; read again every 2 s while it has not ended. */
export function useRun(traceId: string) {
  const client = useApi();
  return useQuery({
    queryKey: [...RUNS, 'run', traceId],
    queryFn: () => client.runs.get(traceId),
    refetchInterval: (query) => (query.state.data && isLive(query.state.data) ? 2_000 : false),
  });
}

/** Agents to choose from for "sessions by agent": the newest 100 (`total` says whether there are more). */
export function useAgentChoices() {
  const client = useApi();
  return useQuery({
    queryKey: ['sessions', 'agent-choices'],
    queryFn: async () => {
      const page = await client.agents.list({ page_size: 100 });
      return { items: page.items, total: page.total };
    },
  });
}

/** An agent's sessions, newest first (`GET /v1/combo/agents/{agent_id}/sessions`). */
/** The tenant's sessions, newest first (`GET /v1/combo/sessions`); with an agent id, that agent's only. */
export function useSessions(agentId: string | undefined) {
  const client = useApi();
  return usePagedList(['sessions', 'list', agentId ?? null], (page) =>
    client.sessions.listAll({ ...page, ...(agentId ? { agent_id: agentId } : {}) }),
  );
}

/** One session (`GET /v1/combo/sessions/{session_id}`). */
export function useSessionRecord(sessionId: string) {
  const client = useApi();
  return useQuery({ queryKey: ['sessions', 'session', sessionId], queryFn: () => client.sessions.get(sessionId) });
}

/** A session's messages, oldest first (`GET /v1/combo/sessions/{session_id}/messages`). */
export function useTranscript(sessionId: string) {
  const client = useApi();
  return usePagedList(['sessions', 'messages', sessionId], (page) => client.sessions.messages.list(sessionId, page));
}

/** Cancels a run that has not ended (`POST …/cancel`); answers the run once it has ended. */
export function useCancelRun() {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (traceId: string) => client.runs.cancel(traceId),
    onSuccess: (run) => {
      queryClient.setQueryData([...RUNS, 'run', run.trace_id], run);
      return queryClient.invalidateQueries({ queryKey: RUNS });
    },
  });
}

/** Approves or rejects a tool call the run waits on (`POST …/approvals/{approval_id}`). */
export function useDecideApproval(traceId: string) {
  const client = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ approvalId, ...body }: ApprovalDecisionRequest & { approvalId: string }) =>
      client.runs.approvals.decide(traceId, approvalId, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...RUNS, 'run', traceId] }),
  });
}

export interface RunEvents {
  /** The events so far, in order, each once. */
  events: StreamEvent[];
  /** `reading`: the stream is open (a live run's stays open until `done`); `ended`: `done` arrived; `failed`: see `error`. */
  phase: 'reading' | 'ended' | 'failed';
  error: unknown;
  /** After a failure: reads on from the last event seen. */
  retry: () => void;
}

/**
 * The run's stored events (`GET /v1/combo/completions/{trace_id}/events`) from the first: an ended
 * run's up to `done`, a live run's as they come until `done`. A new client (the console token was
 * renewed) resumes after the last event seen, never from the start again.
 */
export function useRunEvents(traceId: string): RunEvents {
  const client = useApi();
  const queryClient = useQueryClient();
  const [state, setState] = useState<Omit<RunEvents, 'retry'>>({ events: [], phase: 'reading', error: null });
  const [attempt, setAttempt] = useState(0);
  const lastEventId = useRef<string | undefined>(undefined);
  const ended = useRef(false);

  useEffect(() => {
    if (ended.current) return;
    const controller = new AbortController();
    const stream = client.runs.events(traceId, lastEventId.current ? { last_event_id: lastEventId.current } : {}, {
      signal: controller.signal,
    });
    const read = async () => {
      try {
        for await (const event of stream) {
          if (controller.signal.aborted) return;
          lastEventId.current = event.id;
          setState((now) => ({ ...now, events: [...now.events, event] }));
        }
        if (controller.signal.aborted) return;
        ended.current = true;
        setState((now) => ({ ...now, phase: 'ended' }));
        // The run's record says it has ended a moment after `done`: read it again.
        void queryClient.invalidateQueries({ queryKey: RUNS });
      } catch (error) {
        if (controller.signal.aborted) return;
        setState((now) => ({ ...now, phase: 'failed', error }));
      }
    };
    void read();
    return () => controller.abort();
  }, [client, queryClient, traceId, attempt]);

  const retry = () => {
    setState((now) => ({ ...now, phase: 'reading', error: null }));
    setAttempt((n) => n + 1);
  };
  return { ...state, retry };
}
