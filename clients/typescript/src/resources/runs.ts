/** `client.runs`: the generated methods, and `events` (a run's event stream, resumable). */
import type { ComboCore, RequestOptions } from '../core';
import { errorFromCode } from '../errors';
import type { CompletionReply, CompletionRun, RunStatus } from '../generated/models';
import { RunsBase } from '../generated/resources';
import { sleep } from '../internal';
import { CompletionStream, type StreamResult } from '../streaming';

/** Parameters of `runs.events`. */
export interface RunEventsParams {
  /** Start after this event (`<trace_id>:<n>`); default: from the first event. */
  last_event_id?: string;
}

export class Runs extends RunsBase {
  /**
   * The run's events (every run: streamed or not, API, trigger or cron), from the start or after
   * `last_event_id`, while it runs and for STREAM_RETENTION_HOURS after; resumed automatically when
   * the connection drops. `for await (const event of client.runs.events(traceId)) ...`; `.final()`
   * gives the outcome.
   * `GET /v1/combo/completions/{trace_id}/events`
   */
  events(traceId: string, params: RunEventsParams = {}, options: RequestOptions = {}): CompletionStream {
    return runEvents(this._client, traceId, params.last_event_id, options);
  }
}

/** A run's event stream through GET .../events, resumed after its last event whenever a connection drops. */
export function runEvents(client: ComboCore, traceId: string, lastEventId: string | undefined, options: RequestOptions): CompletionStream {
  const path = `/v1/combo/completions/${encodeURIComponent(traceId)}/events`;
  return new CompletionStream(
    (position) =>
      client.openStream({ method: 'GET', path, headers: position.lastEventId ? { 'last-event-id': position.lastEventId } : {} }, options),
    {
      maxResumes: client.maxStreamResumes,
      idleTimeout: options.timeout ?? client.timeout,
      traceId,
      ...(lastEventId ? { lastEventId } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
}

const ENDED: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'canceled']);

/**
 * Follows an accepted run (HTTP 202) to its end through its events, and answers what a JSON completion
 * answers; a failed run throws its typed error.
 */
export async function followRun(client: ComboCore, traceId: string, options: RequestOptions): Promise<CompletionReply> {
  const outcome = await runEvents(client, traceId, undefined, options).final();
  // `done` is written with the run's end; the record may take a moment longer to say so.
  const path = `/v1/combo/completions/${encodeURIComponent(traceId)}`;
  let run = await client.request<CompletionRun>({ method: 'GET', path }, options);
  for (let i = 0; i < 20 && !ENDED.has(run.status); i++) {
    await sleep(250, options.signal);
    run = await client.request<CompletionRun>({ method: 'GET', path }, options);
  }
  if (run.status === 'failed') {
    const error = run.error ?? { code: 20001, message: 'The run failed.' };
    throw errorFromCode(error.code, error.message, { data: { trace_id: traceId }, traceId });
  }
  return replyOf(run, outcome);
}

function replyOf(run: CompletionRun, outcome: StreamResult): CompletionReply {
  const stopReason =
    run.stop_reason ?? (outcome.stop_reason === 'failed' || outcome.stop_reason === undefined ? 'answered' : outcome.stop_reason);
  return {
    session_id: run.session_id,
    answer: run.answer ?? outcome.answer,
    reference: run.reference.length > 0 ? run.reference : outcome.reference,
    trace_id: run.trace_id,
    cost: run.cost ?? outcome.cost ?? { tokens: 0, duration_ms: 0 },
    route: run.route,
    model: run.model,
    offline: run.offline,
    stop_reason: stopReason,
    artifacts: run.artifacts,
  };
}
