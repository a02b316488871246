/**
 * `client.inbound`: signed inbound calls, as a sending system makes them (no API key: the
 * integration's secret signs the raw body; see `signWebhook`).
 */
import { APIPromise, type RequestOptions } from '../core';
import type { InboundWebhookAccepted, InboundWebhookPayload } from '../generated/models';
import { InboundBase } from '../generated/resources';
import { signWebhook } from '../webhooks';

/** How an inbound call is signed (and its request options). */
export interface InboundSendOptions extends RequestOptions {
  /** The integration (`int_...`) whose secret signs the call. */
  integrationId: string;
  /** The integration's secret. */
  secret: string;
  /** X-Combo-Event-Id, unique per event (default: a random UUID); the same id again is acknowledged as a duplicate. */
  eventId?: string;
  /** X-Combo-Timestamp, Unix seconds (default: now). */
  timestamp?: number;
}

export class Inbound extends InboundBase {
  /**
   * Sends an event on a channel (`workchat-a`, `workchat-b`, `review-a`, `git-a`, `git-b`, `git-c`),
   * signed with the integration's secret. Channel headers (e.g. `X-GitHub-Event`) go in `headers`.
   * `POST /v1/webhook/{channel}?integration_id=`
   */
  send(channel: string, payload: InboundWebhookPayload | string, options: InboundSendOptions): APIPromise<InboundWebhookAccepted> {
    return this.signed(`/v1/webhook/${encodeURIComponent(channel)}`, payload, options);
  }

  /**
   * Sends a free-form event to a generic event trigger, signed with the `generic` integration's secret.
   * `POST /v1/webhook/generic/{trigger_id}?integration_id=`
   */
  sendGeneric(triggerId: string, payload: InboundWebhookPayload | string, options: InboundSendOptions): APIPromise<InboundWebhookAccepted> {
    return this.signed(`/v1/webhook/generic/${encodeURIComponent(triggerId)}`, payload, options);
  }

  private signed(path: string, payload: InboundWebhookPayload | string, options: InboundSendOptions): APIPromise<InboundWebhookAccepted> {
    const { integrationId, secret, eventId, timestamp, ...requestOptions } = options;
    const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
    return new APIPromise(
      signWebhook({
        payload: body,
        secret,
        ...(eventId !== undefined ? { eventId } : {}),
        ...(timestamp !== undefined ? { timestamp } : {}),
      }).then((headers) =>
        this._client.send<InboundWebhookAccepted>(
          {
            method: 'POST',
            path,
            query: { integration_id: integrationId },
            rawBody: body,
            headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
            authenticated: false,
          },
          requestOptions,
        ),
      ),
    );
  }
}
