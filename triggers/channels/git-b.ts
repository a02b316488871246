import { type ChannelAdapter, header, type InboundHeaders, text, UNKNOWN, withAction } from './fields';

/**
 * `git-b`: GitHub webhooks. The event's kind is only in the `X-GitHub-Event` header (the sender
 * forwards it); `pull_request` and `issues` add the payload's `action` (`pull_request.opened`,
 * `issues.closed`, ...). Everything else GitHub sends (ping, issue_comment, ...) is `unknown`.
 */
export function normaliseGitHubShaped(eventHeaders: string[]): ChannelAdapter {
  const kindOf = (headers: InboundHeaders) => {
    for (const name of eventHeaders) {
      const kind = header(headers, name);
      if (kind) return kind;
    }
    return null;
  };
  return (headers, payload) => {
    const kind = kindOf(headers);
    const common = {
      project: text(payload, 'repository.full_name'),
      actor: text(payload, 'sender.login', 'sender.username', 'pusher.name'),
    };
    switch (kind) {
      case 'push':
        // GitHub calls the comparison link `compare`, Gitea `compare_url`.
        return { event: 'push', ...common, url: text(payload, 'compare', 'compare_url', 'head_commit.url', 'repository.html_url') };
      case 'pull_request':
        return { event: withAction('pull_request', text(payload, 'action')), ...common, url: text(payload, 'pull_request.html_url') };
      case 'issues':
        return { event: withAction('issues', text(payload, 'action')), ...common, url: text(payload, 'issue.html_url') };
      default:
        return UNKNOWN;
    }
  };
}

export const normaliseGitB = normaliseGitHubShaped(['X-GitHub-Event']);
