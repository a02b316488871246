import { type ChannelAdapter, at, isObject, text, UNKNOWN, withAction } from './fields';

/**
 * `git-a`: GitLab webhooks (push, merge request and pipeline events as GitLab documents them).
 * The kind is `object_kind`; merge requests add `object_attributes.action` (`merge_request.open`,
 * `merge_request.merge`, ...), pipelines their `object_attributes.status` (`pipeline.failed`, ...).
 * Push events name the pusher in `user_username`, the others in `user.username`.
 */
function pushUrl(payload: Record<string, unknown>): string | null {
  // The pushed head commit's page; the project's when the push carries no commits (a deleted branch).
  const head = text(payload, 'checkout_sha', 'after');
  const commits = at(payload, 'commits');
  const commit: unknown = Array.isArray(commits) ? commits.find((c) => isObject(c) && c.id === head) : undefined;
  return text(commit, 'url') ?? text(payload, 'project.web_url');
}

export const normaliseGitA: ChannelAdapter = (_headers, payload) => {
  const project = text(payload, 'project.path_with_namespace');
  switch (text(payload, 'object_kind')) {
    case 'push':
      return { event: 'push', project, actor: text(payload, 'user_username', 'user_name'), url: pushUrl(payload) };
    case 'merge_request':
      return {
        event: withAction('merge_request', text(payload, 'object_attributes.action')),
        project,
        actor: text(payload, 'user.username', 'user.name'),
        url: text(payload, 'object_attributes.url'),
      };
    case 'pipeline': {
      const id = text(payload, 'object_attributes.id');
      const projectUrl = text(payload, 'project.web_url');
      return {
        event: withAction('pipeline', text(payload, 'object_attributes.status')),
        project,
        actor: text(payload, 'user.username', 'user.name'),
        // Older GitLab versions send no pipeline URL; its page is at a fixed place under the project.
        url: text(payload, 'object_attributes.url') ?? (projectUrl && id ? `${projectUrl}/-/pipelines/${id}` : null),
      };
    }
    default:
      return UNKNOWN;
  }
};
