import type { CompletionRunStore, NewRun } from '../stores/completion-runs';
import type { KeyedStreamEvent, RunEventStore, RunOwner } from '../stores/run-events';
import { failedStream } from './run-endings';

/** The stores a run's start is written to, narrowed to the writes it makes. */
export interface RunStartStores {
  runs: Pick<CompletionRunStore, 'startOnce' | 'fail'>;
  runEvents: Pick<RunEventStore, 'appendOnce'>;
}

/** The stream's first events: the run was accepted (and, waiting behind earlier runs, queued). */
export interface FirstEvents {
  route: string;
  offline: boolean;
  queued: boolean;
  /** Who may read the stream (an API run's, with its workflow's run id); carried by event 0. */
  owner?: RunOwner;
  /** The events' timestamp: the request's time for an API run (its workflow may write before these are stored). */
  recordedAt?: Date;
  /** The run's writes move its head: a streamed or background run (see AppendOptions in stores/run-events); false by default. */
  announce?: boolean;
}

/** The stream's first event (number 0): the run was accepted, on this route. */
export const acceptedEvent = (traceId: string, first: Pick<FirstEvents, 'route' | 'offline'>): KeyedStreamEvent => ({
  key: 'start:accepted',
  event: 'thinking',
  data: { phase: 'accepted', trace_id: traceId, route: first.route, offline: first.offline },
});

const queuedEvent: KeyedStreamEvent = { key: 'start:queued', event: 'thinking', data: { phase: 'queued' } };

/**
 * The one recorder of a run's start, for every kind of run (API chat runs, agent tasks of triggers
 * and cron jobs): its record, then the stream's first events, from 0, so whoever follows the run
 * reads from there. Both writes are keyed by the trace id, so a retried start records nothing twice.
 */
export function createRunStartRecorder(stores: RunStartStores) {
  /** The run's record: true when this call recorded it, false when its trace id was recorded already. */
  const recordRun = (run: NewRun): Promise<boolean> => stores.runs.startOnce(run);

  async function recordFirstEvents(traceId: string, first: FirstEvents): Promise<void> {
    const events: KeyedStreamEvent[] = [acceptedEvent(traceId, first), ...(first.queued ? [queuedEvent] : [])];
    await stores.runEvents.appendOnce(traceId, 0, events, {
      ...(first.owner ? { owner: first.owner } : {}),
      ...(first.recordedAt ? { recordedAt: first.recordedAt } : {}),
      announce: first.announce ?? false,
    });
  }

  return {
    recordRun,
    recordFirstEvents,
    /**
     * The `queued` event after event 0, for a run whose `accepted` was recorded before its session
     * queued it: a streamed run (its stream opened at once), so the write moves its head.
     */
    async recordQueued(traceId: string): Promise<void> {
      await stores.runEvents.appendOnce(traceId, 1, [queuedEvent], { announce: true });
    },
    /**
     * A run whose hand-over to its session failed after its stream had opened on `accepted` (event
     * 0): its record failed with `error`, its stream ended with `error` and `done` after that event.
     * It never ran: no outbound event, no cost. The record goes first, so a reader of `done` finds it.
     * A streamed run: the write moves its head.
     */
    async recordFailedHandOver(run: { traceId: string; sessionId: string }, error: { code: number; message: string }, at: Date) {
      const cost = { tokens: 0, duration_ms: 0 };
      await stores.runs.fail(run.traceId, error, cost, at);
      await stores.runEvents.appendOnce(run.traceId, 1, failedStream(run, error, cost), { announce: true });
    },
    /** Both, in order: for a run whose start nothing else decides between them (an agent task). */
    async recordStart(run: NewRun, first: FirstEvents): Promise<void> {
      await recordRun(run);
      await recordFirstEvents(run.traceId, first);
    },
  };
}
