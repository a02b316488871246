import { WorkflowFailedError } from '@temporalio/client';
import { randomToken } from '../../common/ids';
import type { EventTrigger } from '../../common/schemas/triggers';
import type { InboundEvent } from '../../common/inbound-event';
import type { AgentTaskOutcome } from '../../workflows/agent-task';
import { agentTaskWorkflow } from '../../workflows/agent-task';
import { consoleToken, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/consumer';
import { chatAnswer } from '../support/scripted-chat';
import { type RecordedRequest, ScriptedUpstream, type ScriptedReply } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const PR_URL = 'https://git.example.com/acme/app/pull/42';

/** A GitHub-like pull_request event, normalised as the git-b adapter delivers it. */
const pullRequestEvent = (overrides: Partial<InboundEvent> = {}): InboundEvent => ({
  event_id: `delivery-${randomToken(12)}`,
  source: 'git-b',
  event: 'pull_request.opened',
  project: 'acme/app',
  actor: 'octocat',
  url: PR_URL,
  received_at: new Date().toISOString(),
  payload: {
    action: 'opened',
    number: 42,
    pull_request: { html_url: PR_URL, title: 'Store the session password', user: { login: 'octocat' } },
    repository: { full_name: 'acme/app' },
  },
  ...overrides,
});

const DIFF = [
  'diff --git a/src/db.js b/src/db.js',
  '--- a/src/db.js',
  '+++ b/src/db.js',
  '@@ -1,2 +1,4 @@',
  ' const db = require("./pool");',
  '+const password = "hunter2hunter2";',
  '+console.log("debug", password);',
].join('\n');

describe('event triggers', () => {
  let api: TestApi;
  let worker: Worker;
  let otherTenant: string;
  let agentId: string;
  const model = new ScriptedUpstream();
  let script: ScriptedReply[] = [];
  const scriptModel = (...replies: ScriptedReply[]) => {
    script = replies;
    model.requests.length = 0;
  };

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = (_req: RecordedRequest) =>
      script.length > 1 ? script.shift()! : (script[0] ?? { status: 500, body: { error: 'nothing scripted' } });
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '5000',
      LLM_MAX_ATTEMPTS: '2',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
    });
    worker = await startTestWorker(api, { dispatcher: false });
    otherTenant = await consoleToken({ tenant_id: 'other-tenant', sub: 'eve', roles: ['admin'] });
    agentId = (
      await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'Reviewer', instructions: 'You review code.' } })
    ).json.data.agent_id;
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await model.stop();
  });

  const call = (method: string, path: string, body?: unknown, key = api.adminKey) => api.call(method, path, { key, body });
  const triggerBody = (
    overrides: Record<string, unknown> = {},
    action: Record<string, unknown> = {},
    match: Record<string, unknown> = {},
  ) => ({
    name: 'Review pull requests',
    trigger: {
      source: 'git-b',
      match: { event: 'pull_request.opened', project_regex: '^acme/', ...match },
      action: { agent_id: agentId, session_template: 'default', inputs: { title: '{{ event.payload.pull_request.title }}' }, ...action },
    },
    ...overrides,
  });
  const createTrigger = async (body: Record<string, unknown>, target = api) => {
    const res = await target.call('POST', '/v1/event-trigger', { key: target.adminKey, body });
    expect(res.json).toMatchObject({ code: 0 });
    return res.json.data as EventTrigger;
  };
  const eventsOf = (name: string, sessionId: string, target = api) =>
    target.services.mongo.db.collection('events').find({ event: name, 'data.session_id': sessionId }).toArray();
  const outcomeOf = (workflowId: string, w = worker) => w.client.workflow.getHandle(workflowId).result() as Promise<AgentTaskOutcome>;

  describe('configuration', () => {
    it('creates, lists, reads, updates and deletes triggers; generic ones show their inbound path', async () => {
      const created = await createTrigger(triggerBody());
      expect(created).toMatchObject({
        trigger_id: expect.stringMatching(/^trg_[A-Za-z0-9]{20}$/),
        name: 'Review pull requests',
        enabled: true,
        inbound_path: null,
        trigger: {
          source: 'git-b',
          match: { event: 'pull_request.opened', project_regex: '^acme/' },
          action: { agent_id: agentId, session_template: 'default', inputs: { title: '{{ event.payload.pull_request.title }}' } },
        },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const generic = await createTrigger(triggerBody({ enabled: false }, {}, {}));
      const genericSource = await call('PUT', `/v1/event-trigger/${generic.trigger_id}`, {
        trigger: { ...triggerBody().trigger, source: 'generic' },
      });
      expect(genericSource.json.data).toMatchObject({
        enabled: false,
        inbound_path: `/v1/webhook/generic/${generic.trigger_id}`,
        trigger: { source: 'generic' },
      });

      const got = await call('GET', `/v1/event-trigger/${created.trigger_id}`);
      expect(got.json.data).toEqual(created);
      const page = await call('GET', '/v1/event-trigger?page=1&page_size=1');
      expect(page.json.data).toMatchObject({ total: 2, page: 1, page_size: 1 });
      expect(page.json.data.items).toHaveLength(1);

      const renamed = await call('PUT', `/v1/event-trigger/${created.trigger_id}`, { name: 'Renamed', enabled: false });
      expect(renamed.json.data).toMatchObject({ name: 'Renamed', enabled: false, trigger: created.trigger });
      expect((await call('PUT', `/v1/event-trigger/${created.trigger_id}`, {})).json).toMatchObject({ code: 10001 });

      expect((await call('DELETE', `/v1/event-trigger/${created.trigger_id}`)).json).toMatchObject({ code: 0, data: { deleted: true } });
      expect((await call('GET', `/v1/event-trigger/${created.trigger_id}`)).json.code).toBe(10004);
      expect((await call('DELETE', `/v1/event-trigger/${created.trigger_id}`)).json.code).toBe(10004);
      await call('DELETE', `/v1/event-trigger/${generic.trigger_id}`);
    });

    it('lists the session templates', async () => {
      const res = await call('GET', '/v1/event-trigger/templates');
      expect(res.json.data.items.map((t: { name: string }) => t.name)).toEqual([
        'default',
        'code-review',
        'import-requirements',
        'import-bugs',
      ]);
      const openApi = (await call('GET', '/v1/openapi.json')).json;
      expect(Object.keys(openApi.paths)).toEqual(
        expect.arrayContaining(['/v1/event-trigger', '/v1/event-trigger/{trigger_id}', '/v1/event-trigger/templates']),
      );
      expect(openApi.paths['/v1/event-trigger'].post.description).toMatch(/linear-time/);
      expect(openApi.paths['/v1/event-trigger'].post.description).toContain('`code-review`');
    });

    it('refuses what could never run with 10001, naming the field', async () => {
      const otherAgent = (await call('POST', '/v1/combo/agents', { name: 'not yours' }, otherTenant)).json.data.agent_id;
      const bad: Array<[Record<string, unknown>, string]> = [
        [triggerBody({}, { agent_id: 'agt_doesnotexist' }), 'body.trigger.action.agent_id'],
        [triggerBody({}, { agent_id: otherAgent }), 'body.trigger.action.agent_id'],
        [triggerBody({}, {}, { project_regex: '(unclosed' }), 'body.trigger.match.project_regex'],
        [triggerBody({}, {}, { project_regex: '(a)\\1' }), 'body.trigger.match.project_regex'],
        [triggerBody({}, {}, { project_regex: 'a'.repeat(501) }), 'body.trigger.match.project_regex'],
        [triggerBody({}, { inputs: { url: '{{ payload.url }}' } }), 'body.trigger.action.inputs.url'],
        [triggerBody({}, { inputs: { url: 'see {{ event.url' } }), 'body.trigger.action.inputs.url'],
        [triggerBody({}, { inputs: { 'Bad-Name': '{{ event.url }}' } }), 'body.trigger.action.inputs.Bad-Name'],
        [
          triggerBody({}, { inputs: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`in_${i}`, 'x'])) }),
          'body.trigger.action.inputs',
        ],
        [triggerBody({}, { session_template: 'poetry' }), 'body.trigger.action.session_template'],
        [triggerBody({}, {}, { event: '' }), 'body.trigger.match.event'],
        [{ ...triggerBody(), trigger: { ...triggerBody().trigger, source: 'fax' } }, 'body.trigger.source'],
      ];
      for (const [body, field] of bad) {
        const res = await call('POST', '/v1/event-trigger', body);
        expect({ field, status: res.status, json: res.json }).toMatchObject({ field, status: 400, json: { code: 10001, data: { field } } });
      }
      const regex = await call('POST', '/v1/event-trigger', triggerBody({}, {}, { project_regex: '(a)\\1' }));
      expect(regex.json.message).toMatch(/RE2/);
      const agent = await call('POST', '/v1/event-trigger', triggerBody({}, { agent_id: 'agt_doesnotexist' }));
      expect(agent.json.message).toContain('agt_doesnotexist');

      const existing = await createTrigger(triggerBody());
      const update = await call('PUT', `/v1/event-trigger/${existing.trigger_id}`, triggerBody({}, { agent_id: 'agt_doesnotexist' }));
      expect(update.json).toMatchObject({ code: 10001, data: { field: 'body.trigger.action.agent_id' } });
      await call('DELETE', `/v1/event-trigger/${existing.trigger_id}`);
    });

    it('refuses a template path no event has; a stored one is listed in problems and keeps working, filled as empty', async () => {
      const refused = await call('POST', '/v1/event-trigger', triggerBody({}, { inputs: { title: '{{ event.foo }}' } }));
      expect(refused.json).toMatchObject({ code: 10001, data: { field: 'body.trigger.action.inputs.title' } });
      expect(refused.json.message).toContain('event.foo is not a field of the event');

      const saved = await createTrigger(triggerBody({}, { inputs: { link: '{{ event.url }}' } }));
      expect(saved.problems).toEqual([]);
      // As an earlier version let it be saved.
      await api.services.mongo.db
        .collection('event_triggers')
        .updateOne(
          { _id: saved.trigger_id as never },
          { $set: { 'trigger.action.inputs': { title: '{{ event.foo }}', link: '{{ event.url }}' } } },
        );
      const problems = [{ field: 'trigger.action.inputs.title', message: expect.stringContaining('event.foo is not a field') }];
      expect((await call('GET', `/v1/event-trigger/${saved.trigger_id}`)).json.data.problems).toEqual(problems);
      const listed = (await call('GET', '/v1/event-trigger?page_size=100')).json.data.items.find(
        (t: EventTrigger) => t.trigger_id === saved.trigger_id,
      );
      expect(listed.problems).toEqual(problems);
      const renamed = await call('PUT', `/v1/event-trigger/${saved.trigger_id}`, { name: 'Still here' });
      expect(renamed.json).toMatchObject({ code: 0, data: { name: 'Still here', problems } });

      scriptModel({ body: chatAnswer('Seen.') });
      const [task] = await api.services.commands.inbound.dispatch('default', pullRequestEvent());
      expect(task).toMatchObject({ trigger_id: saved.trigger_id, started: true });
      expect(task!.error).toBeUndefined();
      expect((await outcomeOf(task!.workflow_id)).answer).toBe('Seen.');
      const asked = (model.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content;
      expect(asked).toContain(`link: ${PR_URL}`);
      expect(asked).not.toContain('title:');
      await call('DELETE', `/v1/event-trigger/${saved.trigger_id}`);
    });

    it("never shows another tenant's trigger: 10004", async () => {
      const mine = await createTrigger(triggerBody());
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { name: 'taken' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(method, `/v1/event-trigger/${mine.trigger_id}`, body, otherTenant);
        expect({ method, status: res.status, code: res.json.code }).toEqual({ method, status: 404, code: 10004 });
      }
      expect((await call('GET', '/v1/event-trigger', undefined, otherTenant)).json.data.total).toBe(0);
      expect((await call('GET', `/v1/event-trigger/${mine.trigger_id}`)).json.data.name).toBe('Review pull requests');
      await call('DELETE', `/v1/event-trigger/${mine.trigger_id}`);
    });
  });

  describe('dispatch', () => {
    it('starts one task per (trigger, event id) and none for events that do not match', async () => {
      const trigger = await createTrigger(triggerBody());
      const disabled = await createTrigger(triggerBody({ enabled: false }));
      scriptModel({ body: chatAnswer('Looks like a login change.') });
      const event = pullRequestEvent();

      const first = await api.services.commands.inbound.dispatch('default', event);
      expect(first).toEqual([
        {
          trigger_id: trigger.trigger_id,
          workflow_id: expect.stringMatching(new RegExp(`^agent-task-${trigger.trigger_id}-[0-9a-f]{24}$`)),
          started: true,
        },
      ]);
      const again = await api.services.commands.inbound.dispatch('default', event);
      expect(again).toEqual([{ ...first[0], started: false }]);

      expect(await api.services.commands.inbound.dispatch('default', pullRequestEvent({ project: 'other/app' }))).toEqual([]);
      expect(await api.services.commands.inbound.dispatch('default', pullRequestEvent({ project: null }))).toEqual([]);
      expect(await api.services.commands.inbound.dispatch('default', pullRequestEvent({ event: 'push' }))).toEqual([]);
      expect(await api.services.commands.inbound.dispatch('default', pullRequestEvent({ source: 'git-c' }))).toEqual([]);
      expect(await api.services.commands.inbound.dispatch('other-tenant', event)).toEqual([]);

      const outcome = await outcomeOf(first[0]!.workflow_id);
      expect(outcome).toMatchObject({ answer: 'Looks like a login change.', stop_reason: 'answered', cost: { tokens: 20 } });
      // Delivered again once its task has finished: still nothing new.
      expect(await api.services.commands.inbound.dispatch('default', event)).toEqual([{ ...first[0], started: false }]);
      const asked = (model.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1)!;
      expect(asked.content).toContain('pull_request.opened from git-b on acme/app');
      expect(asked.content).toContain('title: Store the session password');
      expect(model.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1);

      const session = await call('GET', `/v1/combo/sessions/${outcome.session_id}`);
      expect(session.json.data).toMatchObject({
        agent_id: agentId,
        user_id: `trigger:${trigger.trigger_id}`,
        name: 'pull_request.opened from git-b on acme/app',
        metadata: { event_id: event.event_id, origin: `trigger:${trigger.trigger_id}`, template: 'default', url: PR_URL },
      });
      const [created] = await eventsOf('session.created', outcome.session_id);
      expect(created!.data).toMatchObject({
        session_id: outcome.session_id,
        tenant_id: 'default',
        user_id: `trigger:${trigger.trigger_id}`,
      });
      const finished = await eventsOf('session.finished', outcome.session_id);
      expect(finished).toHaveLength(1);
      expect(finished[0]!.data).toMatchObject({ trace_id: outcome.trace_id, cost: outcome.cost });
      const run = await call('GET', `/v1/combo/completions/${outcome.trace_id}`);
      expect(run.json.data).toMatchObject({ status: 'completed', session_id: outcome.session_id, answer: 'Looks like a login change.' });

      const query = `TriggerId = "${trigger.trigger_id}" AND EventId = "${event.event_id}"`;
      const found = await eventually(async () => {
        const runs = [];
        for await (const wf of worker.client.workflow.list({ query })) runs.push(wf);
        return runs.length > 0 ? runs : undefined;
      }, 15_000);
      expect(found.map((wf) => [wf.type, wf.workflowId])).toEqual([['agentTaskWorkflow', first[0]!.workflow_id]]);
      const disabledRuns = [];
      for await (const wf of worker.client.workflow.list({ query: `TriggerId = "${disabled.trigger_id}"` })) disabledRuns.push(wf);
      expect(disabledRuns).toHaveLength(0);

      await call('DELETE', `/v1/event-trigger/${trigger.trigger_id}`);
      await call('DELETE', `/v1/event-trigger/${disabled.trigger_id}`);
    });

    it('with a trigger id, considers only that trigger: unknown or foreign is 10004, disabled starts nothing', async () => {
      const generic = await createTrigger(triggerBody({}, {}, { event: '*', project_regex: undefined }));
      await call('PUT', `/v1/event-trigger/${generic.trigger_id}`, {
        trigger: { ...triggerBody().trigger, source: 'generic', match: { event: '*' } },
      });
      const other = await call('POST', '/v1/combo/agents', { name: 'theirs' }, otherTenant);
      const foreign = (
        await call(
          'POST',
          '/v1/event-trigger',
          {
            ...triggerBody({}, { agent_id: other.json.data.agent_id }),
            trigger: { ...triggerBody({}, { agent_id: other.json.data.agent_id }).trigger, source: 'generic' },
          },
          otherTenant,
        )
      ).json.data;

      const event = pullRequestEvent({ source: 'generic', event: 'build.failed', project: null });
      await expect(api.services.commands.inbound.dispatch('default', event, { triggerId: 'trg_doesnotexist' })).rejects.toMatchObject({
        code: 10004,
      });
      await expect(api.services.commands.inbound.dispatch('default', event, { triggerId: foreign.trigger_id })).rejects.toMatchObject({
        code: 10004,
      });

      await call('PUT', `/v1/event-trigger/${generic.trigger_id}`, { enabled: false });
      expect(await api.services.commands.inbound.dispatch('default', event, { triggerId: generic.trigger_id })).toEqual([]);

      await call('PUT', `/v1/event-trigger/${generic.trigger_id}`, { enabled: true });
      scriptModel({ body: chatAnswer('The build failed.') });
      const [task] = await api.services.commands.inbound.dispatch('default', event, { triggerId: generic.trigger_id });
      expect(task).toMatchObject({ trigger_id: generic.trigger_id, started: true });
      expect((await outcomeOf(task!.workflow_id)).answer).toBe('The build failed.');
      await call('DELETE', `/v1/event-trigger/${generic.trigger_id}`);
    });

    it('code-review with a model: review.completed carries the pull request from the event', async () => {
      const trigger = await createTrigger(
        triggerBody(
          {},
          {
            session_template: 'code-review',
            inputs: { pr_url: '{{ event.payload.pull_request.html_url }}', title: '{{ event.payload.pull_request.title }}' },
          },
        ),
      );
      const findings = [
        { severity: 'critical', file: 'src/db.js', line: 2, message: 'hard-coded password' },
        { severity: 'critical', file: 'src/db.js', line: 3, message: 'logs the password' },
        { severity: 'warning', file: 'src/db.js', line: null, message: 'no tests' },
        { severity: 'info', file: 'src/db.js', line: null, message: 'naming' },
      ];
      scriptModel({ body: chatAnswer(JSON.stringify({ report: '## Review\nA hard-coded password, logged.', findings })) });
      const [task] = await api.services.commands.inbound.dispatch('default', pullRequestEvent());
      const outcome = await outcomeOf(task!.workflow_id);

      const sent = model.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> };
      expect(sent.messages[0]!.content).toContain('`findings`');
      expect(sent.messages.at(-1)!.content.split('\n')[0]).toBe(`Review the change ${PR_URL}`);
      const [review] = await eventsOf('review.completed', outcome.session_id);
      expect(review!.data).toMatchObject({
        pr_url: PR_URL,
        issues_found: { critical: 2, warning: 1, info: 1 },
        session_id: outcome.session_id,
      });
      const [finished] = await eventsOf('session.finished', outcome.session_id);
      expect(finished!.data).toMatchObject({ route: '@review@llm@default@' });
      await call('DELETE', `/v1/event-trigger/${trigger.trigger_id}`);
    });

    it('fails for good, saying why, when the agent was deleted after the trigger was made', async () => {
      const doomed = (await call('POST', '/v1/combo/agents', { name: 'short-lived' })).json.data.agent_id;
      const trigger = await createTrigger(triggerBody({}, { agent_id: doomed }, { event: 'push' }));
      // Behind the API's back: the API refuses to delete an agent a trigger runs (10005) unless cascading to the trigger.
      await api.services.mongo.db.collection('agents').deleteOne({ _id: doomed as never });
      const [task] = await api.services.commands.inbound.dispatch('default', pullRequestEvent({ event: 'push' }));
      const failure = await outcomeOf(task!.workflow_id).then(
        () => null,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(WorkflowFailedError);
      const cause = (failure as WorkflowFailedError).cause as { cause?: { message?: string; type?: string } } | undefined;
      expect(cause?.cause).toMatchObject({
        type: 'AgentTaskRejected',
        message: expect.stringContaining(`agent ${doomed} no longer exists`),
      });
      const history = await worker.client.workflow.getHandle(task!.workflow_id).fetchHistory();
      expect(
        history.events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt),
      ).toEqual([1]);
      await call('DELETE', `/v1/event-trigger/${trigger.trigger_id}`);
    });

    it('runs a cron-style task without an event on its own question', async () => {
      scriptModel({ body: chatAnswer('Nothing happened today.') });
      const workflowId = `agent-task-test-${randomToken(10)}`;
      const outcome = await worker.client.workflow.execute(agentTaskWorkflow, {
        workflowId,
        taskQueue: api.config.TEMPORAL_TASK_QUEUE,
        args: [
          {
            tenantId: 'default',
            origin: 'cron:crn_daily',
            key: '2026-01-01T09:00:00.000Z',
            agentId,
            sessionTemplate: 'default',
            inputs: {},
            question: 'Summarise the day.',
            event: null,
          },
        ],
      });
      expect(outcome.answer).toBe('Nothing happened today.');
      const asked = (model.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages.at(-1)!;
      expect(asked.content).toBe('Summarise the day.');
      const session = await call('GET', `/v1/combo/sessions/${outcome.session_id}`);
      expect(session.json.data).toMatchObject({
        user_id: 'cron:crn_daily',
        name: 'Scheduled task (cron:crn_daily)',
        metadata: { task_key: '2026-01-01T09:00:00.000Z' },
      });
    });
  });

  describe('without a language model', () => {
    let offlineApi: TestApi;
    let offlineWorker: Worker;
    beforeAll(async () => {
      offlineApi = await startTestApi();
      offlineWorker = await startTestWorker(offlineApi, { dispatcher: false });
    });
    afterAll(async () => {
      await offlineWorker?.stop();
      await offlineApi?.close();
    });

    it('code-review takes the rule-based route on the diff input and announces review.completed', async () => {
      const reviewer = (await offlineApi.call('POST', '/v1/combo/agents', { key: offlineApi.adminKey, body: { name: 'Rules reviewer' } }))
        .json.data.agent_id;
      await createTrigger(
        {
          name: 'Review with rules',
          trigger: {
            source: 'git-b',
            match: { event: '*', project_regex: 'acme' },
            action: {
              agent_id: reviewer,
              session_template: 'code-review',
              inputs: { pr_url: '{{ event.payload.pull_request.html_url }}', diff: '{{ event.payload.diff }}' },
            },
          },
        },
        offlineApi,
      );
      const event = pullRequestEvent({ payload: { ...pullRequestEvent().payload, diff: DIFF } });
      const [task] = await offlineApi.services.commands.inbound.dispatch('default', event);
      const outcome = await outcomeOf(task!.workflow_id, offlineWorker);

      const [review] = await eventsOf('review.completed', outcome.session_id, offlineApi);
      expect(review!.data).toMatchObject({
        pr_url: PR_URL,
        issues_found: { critical: expect.any(Number), warning: expect.any(Number), info: expect.any(Number) },
      });
      expect((review!.data.issues_found as { critical: number }).critical).toBeGreaterThanOrEqual(1);
      const [finished] = await eventsOf('session.finished', outcome.session_id, offlineApi);
      expect(finished!.data).toMatchObject({ route: '@review@rules@default@', cost: { tokens: 0 } });
      expect(model.requests.filter((r) => r.path.endsWith('/chat/completions') && JSON.stringify(r.body).includes('hunter2'))).toHaveLength(
        0,
      );
    });
  });
});
