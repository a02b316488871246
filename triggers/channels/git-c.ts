import { normaliseGitHubShaped } from './git-b';

/**
 * `git-c`: Gitea (and Forgejo), whose webhook payloads follow GitHub's shapes. The kind comes
 * from `X-Gitea-Event`; Gitea sends `X-GitHub-Event` too, used when a relay kept only that one.
 */
export const normaliseGitC = normaliseGitHubShaped(['X-Gitea-Event', 'X-Forgejo-Event', 'X-GitHub-Event']);
