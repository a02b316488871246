/**
 * `client.completions`: ask an agent. `create` answers the reply (a run still going after the
 * service's reply wait, HTTP 202, is followed to its end unless `wait: false`); `stream` answers a
 * resumable event stream.
 */
import { APIPromise, type RequestOptions, type WithResponse } from '../core';
import type { CompletionReply, CompletionRequest, RunAccepted } from '../generated/models';
import { CompletionsBase } from '../generated/resources';
import { uuid } from '../internal';
import { CompletionStream } from '../streaming';
import { followRun } from './runs';

/** `completions.create`'s parameters: the request, and `wait`. */
export interface CompletionCreateParams extends CompletionRequest {
  /**
   * Follow a run that is still going when the service answers (HTTP 202 `RunAccepted`) to its end
   * (default true); false answers the `RunAccepted`. A `background` request is never followed.
   */
  wait?: boolean;
}

/** `completions.stream`'s parameters. */
export type CompletionStreamParams = Omit<CompletionRequest, 'stream' | 'background'>;

/**
 * What `completions.create` answers for its parameters `P`: the stream when `stream` may be true; the
 * `RunAccepted` when `background` may be true or `wait` may be false; the reply when the run may be
 * waited for. A literal (`stream: true`) gives one type; a `boolean` variable, the union of what it may give.
 */
export type CompletionCreateResult<P extends CompletionCreateParams> =
  | (MayBe<P, 'stream', true> extends true ? CompletionStream : never)
  | (MayBe<P, 'stream', false> extends true
      ? | (MayBe<P, 'background', true> extends true ? RunAccepted : never)
        | (MayBe<P, 'background', false> extends true
            ? CompletionReply | (MayBe<P, 'wait', false, true> extends true ? RunAccepted : never)
            : never)
      : never);

/** Whether `P[K]` may be `value` (an absent or undefined flag counts as `absent`, its default). */
type MayBe<P, K extends string, value extends boolean, absent extends boolean = false> = value extends FlagOf<P, K, absent> ? true : false;
type FlagOf<P, K extends string, absent extends boolean> = K extends keyof P
  ? Exclude<P[K], undefined> | (undefined extends P[K] ? absent : never)
  : absent;

export class Completions extends CompletionsBase {
  /**
   * Ask the agent. Answers the reply; a failed run throws its typed error (30001
   * UpstreamModelError, ...). With `stream: true`, the event stream (as `stream()`); with
   * `background: true` or `wait: false`, the `RunAccepted` of a run that goes on. Flags given as
   * `boolean` variables type the answer as the union of what they may give.
   * `POST /v1/combo/agents/{agent_id}/completions`
   */
  create(agentId: string, params: CompletionCreateParams & { stream: true }, options?: RequestOptions): APIPromise<CompletionStream>;
  create(
    agentId: string,
    params: CompletionCreateParams & { stream?: false; background: true },
    options?: RequestOptions,
  ): APIPromise<RunAccepted>;
  create(
    agentId: string,
    params: CompletionCreateParams & { stream?: false; background?: false; wait: false },
    options?: RequestOptions,
  ): APIPromise<CompletionReply | RunAccepted>;
  create(
    agentId: string,
    params: CompletionCreateParams & { stream?: false; background?: false; wait?: true },
    options?: RequestOptions,
  ): APIPromise<CompletionReply>;
  create<P extends CompletionCreateParams>(agentId: string, params: P, options?: RequestOptions): APIPromise<CompletionCreateResult<P>>;
  create(
    agentId: string,
    params: CompletionCreateParams,
    options: RequestOptions = {},
  ): APIPromise<CompletionReply | RunAccepted | CompletionStream> {
    const { wait = true, ...body } = params;
    if (body.stream) {
      const { stream: _stream, background: _background, ...rest } = body;
      return this.stream(agentId, rest, options);
    }
    const path = `/v1/combo/agents/${encodeURIComponent(agentId)}/completions`;
    return new APIPromise(
      (async (): Promise<WithResponse<CompletionReply | RunAccepted>> => {
        const idempotencyKey = options.idempotencyKey ?? uuid();
        const result = await this._client.send<CompletionReply | RunAccepted>(
          { method: 'POST', path, body },
          { ...options, idempotencyKey },
        );
        if (result.response.status !== 202 || !wait || body.background) return result;
        const accepted = result.data as RunAccepted;
        const { reply } = await followRun(this._client, accepted.trace_id, options);
        return { data: reply, response: result.response };
      })(),
    );
  }

  /**
   * Waits for an existing run to end and answers its reply, as `create` does for a run still going:
   * through its events (resumed when the connection drops), then its record until its status is
   * completed, failed or canceled. A failed run throws its typed error (30001 UpstreamModelError, ...).
   * `.withResponse()` gives the response of the run record read last.
   * `GET /v1/combo/completions/{trace_id}/events`, then `GET /v1/combo/completions/{trace_id}`
   */
  follow(traceId: string, options: RequestOptions = {}): APIPromise<CompletionReply> {
    return new APIPromise(followRun(this._client, traceId, options).then(({ reply, response }) => ({ data: reply, response })));
  }

  /**
   * Ask the agent with a streamed reply: `for await (const event of stream)` gives the typed events,
   * `await stream.final()` the outcome. A dropped connection is resumed (Last-Event-ID), each event
   * is seen once and in order. Rejects at once when the service refuses the request. With
   * `stream_format: 'delta'` each `message` event carries only the new text (`data.delta`), the last
   * one the whole answer; `final().answer` is the whole answer either way.
   * `POST /v1/combo/agents/{agent_id}/completions` with `stream: true`
   */
  stream(agentId: string, params: CompletionStreamParams, options: RequestOptions = {}): APIPromise<CompletionStream> {
    const path = `/v1/combo/agents/${encodeURIComponent(agentId)}/completions`;
    // One key for the POST and its repeats: a repeat before any event arrived attaches to the same run.
    const requestOptions = { ...options, idempotencyKey: options.idempotencyKey ?? uuid() };
    const client = this._client;
    const stream = new CompletionStream(
      (position) => {
        if (position.traceId === undefined)
          return client.openStream({ method: 'POST', path, body: { ...params, stream: true } }, requestOptions);
        // Resumed in the format asked for: the events after the last one received, as it would have sent them.
        const format = params.stream_format === 'delta' ? '?stream_format=delta' : '';
        const eventsPath = `/v1/combo/completions/${encodeURIComponent(position.traceId)}/events${format}`;
        const headers: Record<string, string> = position.lastEventId ? { 'last-event-id': position.lastEventId } : {};
        return client.openStream({ method: 'GET', path: eventsPath, headers }, options);
      },
      {
        maxResumes: client.maxStreamResumes,
        idleTimeout: options.timeout ?? client.timeout,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    return new APIPromise(stream.start().then((s) => ({ data: s, response: s.response! })));
  }
}
