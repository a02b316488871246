import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../common/errors';
import { rateFamilyOf } from '../../api/middleware/rate-limit';
import { normaliseInbound } from '../../triggers/channels';
import type { InboundChannel } from '../../common/inbound-event';

const FIXTURES = join(__dirname, '..', 'fixtures', 'webhooks');
const load = (channel: string, file: string): unknown => JSON.parse(readFileSync(join(FIXTURES, channel, file), 'utf8'));

interface Expected {
  headers?: Record<string, string>;
  event: string;
  project: string | null;
  actor: string | null;
  url: string | null;
}

/** Every fixture file, by channel, with what it must normalise to. */
const cases: Record<InboundChannel | 'generic', Record<string, Expected>> = {
  'review-a': {
    'patchset-created.json': {
      event: 'patchset-created',
      project: 'platform/build',
      actor: 'jroe',
      url: 'https://review.example.com/c/platform/build/+/12345',
    },
    'change-merged.json': {
      event: 'change-merged',
      project: 'apps/mobile-client',
      actor: 'mmustermann',
      url: 'https://review.example.com/c/apps/mobile-client/+/6702',
    },
    'comment-added.json': { event: 'unknown', project: null, actor: null, url: null },
  },
  'git-a': {
    'push.json': {
      event: 'push',
      project: 'mike/diaspora',
      actor: 'jsmith',
      url: 'http://example.com/mike/diaspora/commit/da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
    },
    'merge_request.open.json': {
      event: 'merge_request.open',
      project: 'gitlabhq/gitlab-test',
      actor: 'root',
      url: 'http://example.com/gitlabhq/gitlab-test/-/merge_requests/1',
    },
    'pipeline.failed.json': {
      event: 'pipeline.failed',
      project: 'gitlab-org/gitlab-test',
      actor: 'root',
      url: 'http://example.com/gitlab-org/gitlab-test/-/pipelines/31',
    },
    'pipeline.no-url.json': {
      event: 'pipeline.success',
      project: 'ops/infra',
      actor: 'build-bot',
      url: 'https://gitlab.example.com/ops/infra/-/pipelines/1207',
    },
    'issue.json': { event: 'unknown', project: null, actor: null, url: null },
  },
  'git-b': {
    'push.json': {
      headers: { 'x-github-event': 'push' },
      event: 'push',
      project: 'Codertocat/Hello-World',
      actor: 'Codertocat',
      url: 'https://github.com/Codertocat/Hello-World/compare/6113728f27ae...0d1a26e67d8f',
    },
    'pull_request.opened.json': {
      headers: { 'x-github-event': 'pull_request' },
      event: 'pull_request.opened',
      project: 'Codertocat/Hello-World',
      actor: 'Codertocat',
      url: 'https://github.com/Codertocat/Hello-World/pull/2',
    },
    'issues.opened.json': {
      headers: { 'x-github-event': 'issues' },
      event: 'issues.opened',
      project: 'Codertocat/Hello-World',
      actor: 'Codertocat',
      url: 'https://github.com/Codertocat/Hello-World/issues/1',
    },
    'ping.json': { headers: { 'x-github-event': 'ping' }, event: 'unknown', project: null, actor: null, url: null },
  },
  'git-c': {
    'push.json': {
      headers: { 'x-gitea-event': 'push' },
      event: 'push',
      project: 'gitea/webhooks',
      actor: 'gitea',
      url: 'http://localhost:3000/gitea/webhooks/compare/28e1879d029cb852e4844d9c718537df08844e03...bffeb74224043ba2feb48d137756c8a9331c449a',
    },
    'pull_request.opened.json': {
      headers: { 'x-gitea-event': 'pull_request' },
      event: 'pull_request.opened',
      project: 'ops/deploy-scripts',
      actor: 'lchen',
      url: 'https://gitea.example.com/ops/deploy-scripts/pulls/7',
    },
    'issues.opened.json': {
      headers: { 'x-github-event': 'issues' },
      event: 'issues.opened',
      project: 'ops/deploy-scripts',
      actor: 'mgarcia',
      url: 'https://gitea.example.com/ops/deploy-scripts/issues/15',
    },
  },
  'workchat-a': {
    'im.message.receive_v1.json': { event: 'message', project: 'oc_5ce6d572455d361153b7xx51da133945', actor: 'e33ggbyz', url: null },
    'calendar.event.changed_v4.json': {
      event: 'calendar.event.changed',
      project: 'feishu.cn_HF9U2MbibE8PPpjro6xjqa@group.calendar.feishu.cn',
      actor: null,
      url: null,
    },
    'approval_instance.json': { event: 'approval.approved', project: '7C468A54-8745-2245-9675-08B7C63E7A85', actor: null, url: null },
    'approval_task.json': { event: 'approval_task.pending', project: '7C468A54-8745-2245-9675-08B7C63E7A85', actor: 'e33ggbyz', url: null },
    'contact.user.updated_v3.json': { event: 'unknown', project: null, actor: null, url: null },
  },
  'workchat-b': {
    'robot-message.json': { event: 'message', project: 'cidqO7Ne6bCRw6eZ8Yq5fYHnQ==', actor: 'manager4220', url: null },
    'user_add_org.json': { event: 'contact.user.added', project: 'dinge8a565fb6a7f6d7f35c2f4657eb6378f', actor: 'manager4220', url: null },
    'org_dept_modify.json': { event: 'contact.dept.modified', project: 'dinge8a565fb6a7f6d7f35c2f4657eb6378f', actor: null, url: null },
    'check_url.json': { event: 'unknown', project: null, actor: null, url: null },
  },
  generic: {
    'build-finished.json': {
      event: 'build.finished',
      project: 'payments/api',
      actor: 'ci-runner-7',
      url: 'https://ci.example.com/builds/88231',
    },
    'unnamed.json': { event: 'generic', project: null, actor: null, url: null },
  },
};

const receivedAt = new Date('2026-01-15T10:00:00.000Z');

describe('channel adapters', () => {
  it('have an expectation for every fixture file (none is skipped)', () => {
    for (const channel of Object.keys(cases) as Array<keyof typeof cases>) {
      expect(
        readdirSync(join(FIXTURES, channel))
          .filter((f) => f.endsWith('.json'))
          .sort(),
      ).toEqual(Object.keys(cases[channel]).sort());
    }
  });

  const table = Object.entries(cases).flatMap(([channel, files]) =>
    Object.entries(files).map(([file, expected]) => [channel as InboundChannel | 'generic', file, expected] as const),
  );
  it.each(table)('%s %s', (channel, file, { headers = {}, ...expected }) => {
    const payload = load(channel, file);
    const event = normaliseInbound(channel, headers, payload, 'evt-42', receivedAt);
    expect(event).toEqual({ event_id: 'evt-42', source: channel, ...expected, received_at: '2026-01-15T10:00:00.000Z', payload });
  });

  it('reads the event kind of GitHub-shaped channels from the header only', () => {
    const payload = load('git-b', 'pull_request.opened.json');
    expect(normaliseInbound('git-b', {}, payload, 'e', receivedAt).event).toBe('unknown');
    // A Gitea header means nothing to the GitHub channel; GitHub's header is Gitea's fallback.
    expect(normaliseInbound('git-b', { 'x-gitea-event': 'pull_request' }, payload, 'e', receivedAt).event).toBe('unknown');
    expect(normaliseInbound('git-c', { 'x-github-event': ['pull_request'] }, payload, 'e', receivedAt).event).toBe('pull_request.opened');
    expect(
      normaliseInbound(
        'git-c',
        { 'x-gitea-event': 'issues', 'x-github-event': 'push' },
        load('git-c', 'issues.opened.json'),
        'e',
        receivedAt,
      ).event,
    ).toBe('issues.opened');
  });

  it('keeps fields of unexpected types out of the normalised event', () => {
    const odd = {
      object_kind: 'merge_request',
      project: { path_with_namespace: 17 },
      user: 'root',
      object_attributes: { action: ['open'], url: { href: 'x' } },
    };
    expect(normaliseInbound('git-a', {}, odd, 'e', receivedAt)).toMatchObject({
      event: 'merge_request',
      project: '17',
      actor: null,
      url: null,
    });
    const unnamed = normaliseInbound('generic', {}, { event: 'x'.repeat(101), project: '' }, 'e', receivedAt);
    expect(unnamed).toMatchObject({ event: 'generic', project: null });
  });

  it.each([[[1, 2]], ['text'], [null], [42]])('refuses a body that is not a JSON object (%j) with 10001', (payload) => {
    let thrown: unknown;
    try {
      normaliseInbound('git-b', { 'x-github-event': 'push' }, payload, 'e', receivedAt);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe(10001);
  });
});

describe('the inbound rate-limit family', () => {
  it.each([
    ['POST', '/v1/webhook/git-b', 'inbound'],
    ['POST', '/v1/webhook/workchat-a/', 'inbound'],
    ['POST', '/v1/webhook/generic/trg_abc123', 'inbound'],
    ['POST', '/v1/webhook/subscriptions', 'default'],
    ['POST', '/v1/webhook/replays', 'default'],
    ['POST', '/v1/webhook/unknown-channel', 'default'],
    ['GET', '/v1/webhook/git-b', 'default'],
  ])('%s %s counts as %s', (method, path, family) => {
    expect(rateFamilyOf(method, path)).toBe(family);
  });
});
