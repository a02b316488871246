import { invalid } from '../../common/errors';
import type { InboundChannel, InboundEvent } from '../../common/inbound-event';
import { type ChannelAdapter, type InboundHeaders, isObject } from './fields';
import { normaliseGeneric } from './generic';
import { normaliseGitA } from './git-a';
import { normaliseGitB } from './git-b';
import { normaliseGitC } from './git-c';
import { normaliseReviewA } from './review-a';
import { normaliseWorkchatA } from './workchat-a';
import { normaliseWorkchatB } from './workchat-b';

export type { InboundHeaders } from './fields';

const ADAPTERS: Record<InboundChannel | 'generic', ChannelAdapter> = {
  'workchat-a': normaliseWorkchatA,
  'workchat-b': normaliseWorkchatB,
  'review-a': normaliseReviewA,
  'git-a': normaliseGitA,
  'git-b': normaliseGitB,
  'git-c': normaliseGitC,
  generic: normaliseGeneric,
};

/**
 * Turns one channel's body into the normalised event. A payload the adapter does not recognise is
 * `event: 'unknown'` (kept whole, not an error); a body that is not a JSON object is 10001.
 */
export function normaliseInbound(
  channel: InboundChannel | 'generic',
  headers: InboundHeaders,
  payload: unknown,
  eventId: string,
  receivedAt: Date,
): InboundEvent {
  if (!isObject(payload)) throw invalid('body: the event must be a JSON object', { field: 'body' });
  const fields = ADAPTERS[channel](headers, payload);
  return { event_id: eventId, source: channel, ...fields, received_at: receivedAt.toISOString(), payload };
}
