/** `client.runs`: the generated methods, and `events` (a run's event stream, resumable). */
import type { APIResponse, ComboCore, RequestOptions } from '../core';
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
 * Waits for a run to end and answers what a JSON completion answers, with the response of the run
 * record read last: through its events (resumed when the connection drops) to `done`, then its record
 * until its status is completed, failed or canceled (`done` is written with the run's end; the record
 * may say so a moment later). A failed run throws its typed error (the record's, else the stream's).
 */
export async function followRun(
  client: ComboCore,
  traceId: string,
  options: RequestOptions,
): Promise<{ reply: CompletionReply; response: APIResponse }> {
  const stream = runEvents(client, traceId, undefined, options);
  // To the end, whatever the run's outcome (final() throws for a failed run: the record says first).
  for await (const _event of stream);
  const path = `/v1/combo/completions/${encodeURIComponent(traceId)}`;
  let pause = 250;
  let { data: run, response } = await client.send<CompletionRun>({ method: 'GET', path }, options);
  while (!ENDED.has(run.status)) {
    await sleep(pause, options.signal);
    pause = Math.min(pause * 2, 2_000);
    ({ data: run, response } = await client.send<CompletionRun>({ method: 'GET', path }, options));
  }
  if (run.status === 'failed') {
    if (run.error) throw errorFromCode(run.error.code, run.error.message, { data: { trace_id: traceId }, traceId });
    await stream.final(); // the stream's error, when it had one
    throw errorFromCode(20001, 'The run failed.', { data: { trace_id: traceId }, traceId });
  }
  // The stream's outcome fills what the record lacks (a run whose stream ended with an error, e.g. one
  // older than STREAM_RETENTION_HOURS, is still answered from its record).
  const outcome = await stream.final().catch(() => undefined);
  return { reply: replyOf(run, outcome), response };
}

function replyOf(run: CompletionRun, outcome: StreamResult | undefined): CompletionReply {
  const streamed = outcome?.stop_reason === 'failed' ? undefined : outcome?.stop_reason;
  const stopReason = run.stop_reason ?? streamed ?? (run.status === 'canceled' ? 'canceled' : 'answered');
  return {
    session_id: run.session_id,
    answer: run.answer ?? outcome?.answer ?? '',
    reference: run.reference.length > 0 ? run.reference : (outcome?.reference ?? []),
    trace_id: run.trace_id,
    cost: run.cost ?? outcome?.cost ?? { tokens: 0, duration_ms: 0 },
    route: run.route,
    model: run.model,
    offline: run.offline,
    stop_reason: stopReason,
    artifacts: run.artifacts,
  };
}
