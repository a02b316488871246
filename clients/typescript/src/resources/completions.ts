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

export class Completions extends CompletionsBase {
  /**
   * Ask the agent. Answers the reply; a failed run throws its typed error (30001
   * UpstreamModelError, ...). With `stream: true`, the event stream (as `stream()`); with
   * `background: true` or `wait: false`, the `RunAccepted` of a run that goes on.
   * `POST /v1/combo/agents/{agent_id}/completions`
   */
  create(agentId: string, params: CompletionCreateParams & { stream: true }, options?: RequestOptions): APIPromise<CompletionStream>;
  create(agentId: string, params: CompletionCreateParams & { background: true }, options?: RequestOptions): APIPromise<RunAccepted>;
  create(
    agentId: string,
    params: CompletionCreateParams & { wait: false },
    options?: RequestOptions,
  ): APIPromise<CompletionReply | RunAccepted>;
  create(agentId: string, params: CompletionCreateParams, options?: RequestOptions): APIPromise<CompletionReply>;
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
        return { data: await followRun(this._client, accepted.trace_id, options), response: result.response };
      })(),
    );
  }

  /**
   * Ask the agent with a streamed reply: `for await (const event of stream)` gives the typed events,
   * `await stream.final()` the outcome. A dropped connection is resumed (Last-Event-ID), each event
   * is seen once and in order. Rejects at once when the service refuses the request.
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
        const eventsPath = `/v1/combo/completions/${encodeURIComponent(position.traceId)}/events`;
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
