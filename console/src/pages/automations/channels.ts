/**
 * The inbound channels as people know them, a sample event of each (as the sending system posts
 * it, with the header that names its kind), and the ready-made signed `curl` command an
 * integration's secret panel shows: docs/api/triggers-and-cron.md, "Inbound calls": `X-Combo-Signature: sha256=<hex
 * HMAC-SHA256(secret, "<X-Combo-Timestamp>.<raw body>")>`, with `X-Combo-Timestamp` (Unix seconds)
 * and `X-Combo-Event-Id`, signed in the shell by `openssl`.
 */
import type { Integration } from '@combo/client';

export type Channel = Integration['channel'];

export const CHANNELS: { value: Channel; label: string }[] = [
  { value: 'git-b', label: 'GitHub (git-b)' },
  { value: 'git-a', label: 'GitLab (git-a)' },
  { value: 'git-c', label: 'Gitea / Forgejo (git-c)' },
  { value: 'review-a', label: 'Gerrit (review-a)' },
  { value: 'workchat-a', label: 'Lark / Feishu (workchat-a)' },
  { value: 'workchat-b', label: 'DingTalk (workchat-b)' },
  { value: 'generic', label: 'Generic: any system (generic)' },
];

export const channelLabel = (channel: string): string => CHANNELS.find((c) => c.value === channel)?.label ?? channel;

interface ChannelSample {
  /** Headers the sending system adds (the event's kind, for GitHub-shaped channels). */
  headers: Record<string, string>;
  payload: Record<string, unknown>;
  /** Normalised event names the channel's adapter gives (docs/api/triggers-and-cron.md, "Channel adapters"). */
  events: string[];
}

export const CHANNEL_SAMPLES: Record<Channel, ChannelSample> = {
  'git-b': {
    headers: { 'X-GitHub-Event': 'pull_request' },
    payload: {
      action: 'opened',
      pull_request: { number: 42, title: 'Fix the checkout total', html_url: 'https://github.com/acme/shop/pull/42' },
      repository: { full_name: 'acme/shop', html_url: 'https://github.com/acme/shop' },
      sender: { login: 'octocat' },
    },
    events: ['push', 'pull_request.opened', 'pull_request.synchronize', 'pull_request.closed', 'issues.opened', 'issues.closed'],
  },
  'git-a': {
    headers: {},
    payload: {
      object_kind: 'merge_request',
      user: { username: 'jdoe' },
      project: { path_with_namespace: 'acme/shop', web_url: 'https://gitlab.example.com/acme/shop' },
      object_attributes: {
        iid: 42,
        action: 'open',
        title: 'Fix the checkout total',
        url: 'https://gitlab.example.com/acme/shop/-/merge_requests/42',
      },
    },
    events: ['push', 'merge_request.open', 'merge_request.update', 'merge_request.merge', 'pipeline.failed', 'pipeline.success'],
  },
  'git-c': {
    headers: { 'X-Gitea-Event': 'push' },
    payload: {
      ref: 'refs/heads/main',
      compare_url: 'https://gitea.example.com/acme/shop/compare/1a2b3c...4d5e6f',
      repository: { full_name: 'acme/shop', html_url: 'https://gitea.example.com/acme/shop' },
      pusher: { username: 'jdoe' },
      sender: { username: 'jdoe' },
      commits: [{ id: '4d5e6f', message: 'Fix the checkout total' }],
    },
    events: ['push', 'pull_request.opened', 'pull_request.closed', 'issues.opened', 'issues.closed'],
  },
  'review-a': {
    headers: {},
    payload: {
      type: 'patchset-created',
      change: {
        project: 'acme/shop',
        number: 4711,
        subject: 'Fix the checkout total',
        url: 'https://review.example.com/c/acme/shop/+/4711',
      },
      patchSet: { number: 1, revision: '4d5e6f' },
      uploader: { name: 'J. Doe', username: 'jdoe' },
    },
    events: ['patchset-created', 'change-merged'],
  },
  'workchat-a': {
    headers: {},
    payload: {
      schema: '2.0',
      header: { event_type: 'im.message.receive_v1', event_id: 'lark-evt-1' },
      event: {
        sender: { sender_id: { user_id: 'u_jdoe' } },
        message: { chat_id: 'oc_team_chat', message_type: 'text', content: '{"text":"summarise today\'s incidents"}' },
      },
    },
    events: ['message', 'approval.approved', 'approval.rejected', 'calendar.event.changed'],
  },
  'workchat-b': {
    headers: {},
    payload: {
      msgtype: 'text',
      conversationId: 'cid_team_chat',
      senderStaffId: 'staff_jdoe',
      senderNick: 'J. Doe',
      text: { content: 'summarise today' },
    },
    events: ['message', 'contact.user.added', 'contact.user.left', 'contact.dept.created'],
  },
  generic: {
    headers: {},
    payload: { event: 'deploy.finished', project: 'acme/shop', actor: 'ci-bot', url: 'https://ci.example.com/runs/7', status: 'ok' },
    events: ['deploy.finished'],
  },
};

/** A word for a POSIX shell, single-quoted (a single quote inside becomes '\''). */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** The URL as shell words: a generic integration's `{trigger_id}` becomes "$TRIGGER_ID". */
function urlWords(url: string): string {
  const [before, after] = url.split('{trigger_id}', 2);
  if (after === undefined) return shellQuote(url);
  return `${shellQuote(before ?? '')}"$TRIGGER_ID"${shellQuote(after)}`;
}

/**
 * A shell command that sends the channel's sample event to the integration, signed with its
 * secret: pasted into a POSIX shell with `openssl` and `curl`, it is accepted (HTTP 200) within
 * the timestamp tolerance, each run with a new event id.
 */
export function signedCurlExample({ url, secret, channel }: { url: string; secret: string; channel: Channel }): string {
  const sample = CHANNEL_SAMPLES[channel];
  const lines = [`SECRET=${shellQuote(secret)}`];
  if (channel === 'generic') lines.push(`TRIGGER_ID='trg_REPLACE_ME'  # the id of the generic event trigger to send to`);
  lines.push(
    `URL=${urlWords(url)}`,
    `BODY=${shellQuote(JSON.stringify(sample.payload))}`,
    'TS=$(date +%s)',
    `SIG=$(printf '%s' "$TS.$BODY" | openssl dgst -sha256 -hmac "$SECRET" | awk '{print $NF}')`,
  );
  const curl = [
    `curl -sS -X POST "$URL"`,
    `-H 'Content-Type: application/json'`,
    `-H "X-Combo-Event-Id: evt_$(openssl rand -hex 12)"`,
    `-H "X-Combo-Timestamp: $TS"`,
    `-H "X-Combo-Signature: sha256=$SIG"`,
    ...Object.entries(sample.headers).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`),
    `-w '\\nHTTP %{http_code}\\n'`,
    `--data-binary "$BODY"`,
  ];
  return [...lines, curl.join(' \\\n  ')].join('\n');
}
