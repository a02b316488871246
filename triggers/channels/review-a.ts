import { type ChannelAdapter, text, UNKNOWN } from './fields';

/**
 * `review-a`: Gerrit Code Review, as its stream-events (and the webhooks plugin, which posts the
 * same JSON) describe them: `type`, `change` (`project`, `url`, ...), `patchSet`, and the person
 * as `uploader` (patchset-created) or `submitter` (change-merged), each `{name, email, username}`.
 */
const ACTOR_OF: Record<string, string> = {
  'patchset-created': 'uploader',
  'change-merged': 'submitter',
};

export const normaliseReviewA: ChannelAdapter = (_headers, payload) => {
  const type = text(payload, 'type');
  const actorField = type ? ACTOR_OF[type] : undefined;
  if (!type || !actorField) return UNKNOWN;
  return {
    event: type,
    project: text(payload, 'change.project', 'project'),
    actor: text(payload, `${actorField}.username`, `${actorField}.email`, `${actorField}.name`),
    url: text(payload, 'change.url'),
  };
};
