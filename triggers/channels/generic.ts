import { type ChannelAdapter, text } from './fields';

/**
 * `generic` (/v1/webhook/generic/{trigger_id}): the sender defines the body. By convention the
 * top-level strings `event`, `project`, `actor` and `url` fill the normalised fields; an event
 * without a name is `generic`. Everything stays available to the trigger as `event.payload`.
 */
const MAX_NAME = 100;

export const normaliseGeneric: ChannelAdapter = (_headers, payload) => {
  const name = text(payload, 'event');
  return {
    event: name && name.length <= MAX_NAME ? name : 'generic',
    project: text(payload, 'project'),
    actor: text(payload, 'actor'),
    url: text(payload, 'url'),
  };
};
