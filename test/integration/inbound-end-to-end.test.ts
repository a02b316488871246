import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken } from '../../common/ids';
import { signPayload } from '../../common/signature';
import { startTestApi, type TestApi } from '../support/api';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const fixture = (channel: string, file: string) => readFileSync(join(__dirname, '..', 'fixtures', 'webhooks', channel, file), 'utf8');

/** One real event of each channel, as its system sends it. */
const CHANNEL_EVENTS = [
  { channel: 'review-a', file: 'patchset-created.json', headers: {}, event: 'patchset-created', template: 'code-review' },
  {
    channel: 'git-a',
    file: 'merge_request.open.json',
    headers: { 'x-gitlab-event': 'Merge Request Hook' },
    event: 'merge_request.open',
    template: 'default',
  },
  {
    channel: 'git-b',
    file: 'pull_request.opened.json',
    headers: { 'x-github-event': 'pull_request' },
    event: 'pull_request.opened',
    template: 'code-review',
  },
  {
    channel: 'git-c',
    file: 'pull_request.opened.json',
    headers: { 'x-gitea-event': 'pull_request' },
    event: 'pull_request.opened',
    template: 'default',
  },
  { channel: 'workchat-a', file: 'im.message.receive_v1.json', headers: {}, event: 'message', template: 'default' },
  { channel: 'workchat-b', file: 'robot-message.json', headers: {}, event: 'message', template: 'default' },
  {
    channel: 'git-b',
    file: 'issues.opened.json',
    headers: { 'x-github-event': 'issues' },
    event: 'issues.opened',
    template: 'import-bugs',
  },
  {
    channel: 'git-c',
    file: 'issues.opened.json',
    headers: { 'x-gitea-event': 'issues' },
    event: 'issues.opened',
    template: 'import-requirements',
  },
] as const;

const issueTitleOf = (channel: string, file: string) => (JSON.parse(fixture(channel, file)) as { issue: { title: string } }).issue.title;

/**
 * Signed events from every channel, through HTTP, to one finished agent task each, on the real
 * worker with a scripted model: the whole inbound path, end to end.
 */
describe('inbound events end to end', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  const model = new ScriptedUpstream();
  let agentId: string;
  // One integration per channel and tenant; the channel's cases share it.
  const integrations: Record<string, { integration_id: string; secret: string }> = {};

  beforeAll(async () => {
    const modelUrl = await model.start();
    // Reviews are asked for as structured output (report plus findings); other runs get prose.
    const report = '## Review\n- [critical] credentials in config\n- [warning] missing test\n- [info] naming';
    const findings = [
      { severity: 'critical', file: 'config.yml', line: 3, message: 'credentials in config' },
      { severity: 'warning', file: 'src/app.ts', line: null, message: 'missing test' },
      { severity: 'info', file: 'src/app.ts', line: 10, message: 'naming' },
    ];
    model.reply = (req) => {
      const wantsReview = (req.body as { response_format?: { type?: string } } | undefined)?.response_format?.type === 'json_schema';
      return { body: chatAnswer(wantsReview ? JSON.stringify({ report, findings }) : report) };
    };
    api = await startTestApi({ LLM_BASE_URL: modelUrl, RATE_LIMIT_DEFAULT_PER_MIN: '100000', RATE_LIMIT_INBOUND_PER_MIN: '1000' });
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Integrations bot' } })).json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  it.each(CHANNEL_EVENTS)(
    '$channel: a signed $event starts exactly one agent task that finishes its session',
    async ({ channel, file, headers, event, template }) => {
      integrations[channel] ??= (await api.call('POST', '/v1/integrations', { key: api.adminKey, body: { channel } })).json.data;
      const integration = integrations[channel]!;
      const trigger = (
        await api.call('POST', '/v1/event-trigger', {
          key: api.adminKey,
          body: {
            name: `on ${channel}`,
            trigger: {
              source: channel,
              match: { event },
              action: { agent_id: agentId, session_template: template, inputs: { who: '{{ event.actor }}' } },
            },
          },
        })
      ).json.data;
      expect(trigger.trigger_id).toMatch(/^trg_/);

      const body = fixture(channel, file);
      const eventId = `${channel}-${randomToken(8)}`;
      const send = () => {
        const timestamp = String(Math.floor(Date.now() / 1000));
        return api.call('POST', `/v1/webhook/${channel}?integration_id=${integration.integration_id}`, {
          rawBody: body,
          headers: {
            'content-type': 'application/json',
            'x-combo-timestamp': timestamp,
            'x-combo-event-id': eventId,
            'x-combo-signature': signPayload(integration.secret, timestamp, body),
            ...headers,
          },
        });
      };
      const first = await send();
      expect(first.json).toMatchObject({
        code: 0,
        data: { duplicate: false, source: channel, event, tasks: [{ trigger_id: trigger.trigger_id, started: true }] },
      });
      const outcome = await api.services.temporal.workflow.getHandle(first.json.data.tasks[0].workflow_id).result();
      expect(outcome).toMatchObject({ session_id: expect.stringMatching(/^ses_/), stop_reason: 'answered' });

      const events = (name: string) =>
        api.services.mongo.db.collection('events').find({ event: name, 'data.session_id': outcome.session_id }).toArray();
      expect(await events('session.created')).toHaveLength(1);
      expect(await events('session.finished')).toHaveLength(1);
      if (template === 'code-review') {
        const [review] = await events('review.completed');
        expect(review!.data).toMatchObject({ issues_found: { critical: 1, warning: 1, info: 1 }, pr_url: first.json.data.url });
        const report = await api.call('GET', new URL(review!.data.report_url).pathname, { key: api.adminKey });
        expect(report.json.data.content).toContain('[critical] credentials in config');
      }

      if (template === 'import-bugs' || template === 'import-requirements') {
        const [imported] = await events('import.completed');
        expect(imported!.data).toMatchObject({ count: 1, errors: [] });
        const run = await api.call('GET', `/v1/combo/completions/${outcome.trace_id}`, { key: api.adminKey });
        expect(run.json.data.artifacts[0].items[0]).toMatchObject({ title: issueTitleOf(channel, file) });
      }

      // Delivered again (the sender retried): acknowledged, nothing new started.
      const again = await send();
      expect(again.json).toMatchObject({ code: 0, data: { duplicate: true, tasks: [] } });
      expect(await events('session.created')).toHaveLength(1);
    },
  );
});
