import { createTriggerBody } from '../../common/schemas/triggers';
import { agentTaskWorkflowId } from '../../common/agent-task-ids';
import { agentTaskFor } from '../../triggers/agent-task-plan';
import type { InboundEvent } from '../../common/inbound-event';
import { projectRegexProblem } from '../../common/project-regex';
import { explainMatch, type TriggerRule, triggerMatches } from '../../triggers/match';
import { isSessionTemplate, planSession, QUESTION_MAX_CHARS, sessionTemplateCatalog } from '../../triggers/session-templates';
import {
  fillInputs,
  fillTemplate,
  INPUT_VALUE_MAX_CHARS,
  renderInputs,
  templateProblem,
  unknownPathProblems,
} from '../../common/event-templates';

const pullRequestEvent = (overrides: Partial<InboundEvent> = {}): InboundEvent => ({
  event_id: 'delivery-1',
  source: 'git-b',
  event: 'pull_request.opened',
  project: 'acme/app',
  actor: 'octocat',
  url: 'https://git.example.com/acme/app/pull/7',
  received_at: '2026-01-02T03:04:05.000Z',
  payload: {
    number: 7,
    draft: false,
    pull_request: {
      html_url: 'https://git.example.com/acme/app/pull/7',
      title: 'Add login',
      labels: ['a', 'b'],
      'head-ref': 'feature/login',
    },
    text: 'plain text of the event',
  },
  ...overrides,
});

const rule = (overrides: Partial<TriggerRule> & { match?: TriggerRule['match'] } = {}): TriggerRule => ({
  enabled: true,
  source: 'git-b',
  match: { event: 'pull_request.opened' },
  ...overrides,
});

describe('trigger matching', () => {
  it('needs an enabled trigger on the same source naming the event, or *', () => {
    const event = pullRequestEvent();
    expect(triggerMatches(rule(), event)).toBe(true);
    expect(triggerMatches(rule({ enabled: false }), event)).toBe(false);
    expect(triggerMatches(rule({ source: 'git-c' }), event)).toBe(false);
    expect(triggerMatches(rule({ match: { event: 'push' } }), event)).toBe(false);
    expect(triggerMatches(rule({ match: { event: '*' } }), event)).toBe(true);
    expect(triggerMatches(rule({ match: { event: '*' } }), pullRequestEvent({ event: 'push' }))).toBe(true);
    expect(triggerMatches(rule({ source: 'generic', match: { event: '*' } }), event)).toBe(false);
  });

  it('with an integration named, matches only events through it; without, events through any integration', () => {
    const event = pullRequestEvent();
    expect(triggerMatches(rule({ integration_id: 'int_a' }), event, 'int_a')).toBe(true);
    expect(triggerMatches(rule({ integration_id: 'int_a' }), event, 'int_b')).toBe(false);
    expect(triggerMatches(rule({ integration_id: 'int_a' }), event)).toBe(false);
    expect(triggerMatches(rule(), event, 'int_b')).toBe(true);
    expect(triggerMatches(rule({ integration_id: null }), event, 'int_b')).toBe(true);
  });

  it('searches the project with the pattern; an event without a project never matches one', () => {
    expect(triggerMatches(rule({ match: { event: '*', project_regex: '^acme/' } }), pullRequestEvent())).toBe(true);
    expect(triggerMatches(rule({ match: { event: '*', project_regex: 'app$' } }), pullRequestEvent())).toBe(true);
    expect(triggerMatches(rule({ match: { event: '*', project_regex: '^acme/' } }), pullRequestEvent({ project: 'other/acme/app' }))).toBe(
      false,
    );
    expect(triggerMatches(rule({ match: { event: '*', project_regex: '.*' } }), pullRequestEvent({ project: null }))).toBe(false);
    expect(triggerMatches(rule({ match: { event: '*' } }), pullRequestEvent({ project: null }))).toBe(true);
  });

  it('runs a pattern that backtracks catastrophically elsewhere in linear time', () => {
    const project = `${'a'.repeat(5_000)}!`;
    const started = Date.now();
    expect(triggerMatches(rule({ match: { event: '*', project_regex: '^(a+)+$' } }), pullRequestEvent({ project }))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('explains every condition, and agrees with the match on each of them', () => {
    const failedOf = (r: TriggerRule, e: InboundEvent, integrationId?: string) =>
      explainMatch(r, e, integrationId)
        .filter((c) => !c.passed)
        .map((c) => c.condition);
    const event = pullRequestEvent();
    const cases: Array<[TriggerRule, InboundEvent, string | undefined, string[]]> = [
      [rule(), event, undefined, []],
      [rule({ enabled: false }), event, undefined, ['enabled']],
      [rule({ source: 'git-c' }), event, undefined, ['source']],
      [rule({ integration_id: 'int_a' }), event, 'int_b', ['integration']],
      [rule({ integration_id: 'int_a' }), event, undefined, ['integration']],
      [rule({ match: { event: 'push', project_regex: '^other/' } }), event, undefined, ['event', 'project_regex']],
      [rule({ match: { event: '*', project_regex: '.*' } }), pullRequestEvent({ project: null }), undefined, ['project_regex']],
    ];
    for (const [r, e, integrationId, failed] of cases) {
      expect(failedOf(r, e, integrationId)).toEqual(failed);
      expect(triggerMatches(r, e, integrationId)).toBe(failed.length === 0);
    }
    expect(explainMatch(rule({ match: { event: 'push' } }), event).map((c) => c.condition)).toEqual([
      'enabled',
      'source',
      'integration',
      'event',
      'project_regex',
    ]);
    expect(explainMatch(rule({ match: { event: 'push' } }), event)[3]).toEqual({
      condition: 'event',
      passed: false,
      detail: 'the event is pull_request.opened; match.event is push',
    });
    expect(explainMatch(rule({ match: { event: '*', project_regex: '.*' } }), pullRequestEvent({ project: null }))[4]!.detail).toBe(
      'the event has no project, and a project_regex never matches one without',
    );
  });

  it('accepts RE2 patterns and explains what it refuses', () => {
    expect(projectRegexProblem('^acme/(app|api)$')).toBeNull();
    expect(projectRegexProblem('(unclosed')).toMatch(/not a valid RE2 regular expression/);
    expect(projectRegexProblem('(a)\\1')).toMatch(/backreferences/);
    expect(projectRegexProblem('(?=lookahead)')).toMatch(/not a valid/);
    expect(projectRegexProblem('a'.repeat(501))).toMatch(/at most 500/);
  });
});

describe('input templates', () => {
  it('accepts literal text around {{ event.<path> }} expressions only', () => {
    expect(templateProblem('{{ event.payload.pull_request.html_url }}')).toBeNull();
    expect(templateProblem('PR {{event.payload.number}} by {{ event.actor }}!')).toBeNull();
    expect(templateProblem('no expression at all')).toBeNull();
    expect(templateProblem('{{ event.payload.head-ref }}')).toBeNull();
    expect(templateProblem('{{ payload.number }}')).toMatch(/not an expression/);
    expect(templateProblem('{{ event }}')).toMatch(/not an expression/);
    expect(templateProblem('{{ event.payload..x }}')).toMatch(/not an expression/);
    expect(templateProblem('{{ event.payload["x"] }}')).toMatch(/not an expression/);
    expect(templateProblem('{{ event.a | upper }}')).toMatch(/not an expression/);
    expect(templateProblem('{{ event.a }} and {{ event.b')).toMatch(/without its closing/);
  });

  it('refuses paths no event has: unknown fields, and fields below any field but payload', () => {
    expect(templateProblem('{{ event.foo }}')).toMatch(/event\.foo is not a field of the event .*event\.payload/);
    expect(templateProblem('x {{ event.url }} {{ event.pull_request.title }}')).toMatch(/event\.pull_request\.title is not a field/);
    expect(templateProblem('{{ event.project.name }}')).toMatch(/event\.project\.name is not a field/);
    for (const known of ['event_id', 'source', 'event', 'project', 'actor', 'url', 'received_at', 'payload', 'payload.a.0.b']) {
      expect(templateProblem(`{{ event.${known} }}`)).toBeNull();
    }
    expect(unknownPathProblems('{{ event.foo }} {{ event.payload.x }} {{ event.bar.baz }}')).toEqual([
      expect.stringContaining('event.foo '),
      expect.stringContaining('event.bar.baz '),
    ]);
    expect(unknownPathProblems('{{ event.payload.x }}')).toEqual([]);
  });

  it('renders inputs, or says which path the event lacks; null is there and renders empty', () => {
    const event = pullRequestEvent({ project: null, payload: { ...pullRequestEvent().payload, closed_at: null, commits: [{ id: 'c1' }] } });
    expect(
      renderInputs({ p: '[{{ event.project }}]', c: '{{ event.payload.closed_at }}', id: '{{ event.payload.commits.0.id }}' }, event),
    ).toEqual({ inputs: { p: '[]', c: '', id: 'c1' } });
    const missing = renderInputs(
      { ok: '{{ event.url }}', title: '{{ event.payload.pull_request.nope }}', more: '{{ event.payload.commits.3.id }}' },
      event,
    );
    expect(missing).toEqual({ error: expect.stringContaining('input title: event.payload.pull_request.nope') });
    expect((missing as { error: string }).error).toContain('input more: event.payload.commits.3.id');
    // Below a null there is nothing: absent.
    expect(renderInputs({ c: '{{ event.payload.closed_at.day }}' }, event)).toEqual({
      error: expect.stringContaining('event.payload.closed_at.day'),
    });
    // A stored path no event can have fills as empty, as it did before such paths were refused.
    expect(renderInputs({ legacy: '[{{ event.foo }}]' }, event)).toEqual({ inputs: { legacy: '[]' } });
  });

  it('fills strings as they are, numbers and booleans as text, objects as JSON, missing fields as empty', () => {
    const event = pullRequestEvent();
    expect(fillTemplate('{{ event.payload.pull_request.html_url }}', event)).toBe('https://git.example.com/acme/app/pull/7');
    expect(fillTemplate('#{{ event.payload.number }} draft={{ event.payload.draft }}', event)).toBe('#7 draft=false');
    expect(fillTemplate('{{ event.payload.pull_request.labels }}', event)).toBe('["a","b"]');
    expect(fillTemplate('{{ event.payload.pull_request.labels.1 }}', event)).toBe('b');
    expect(fillTemplate('[{{ event.payload.missing.deeper }}]', event)).toBe('[]');
    expect(fillTemplate('{{ event.project }}/{{ event.payload.pull_request.head-ref }}', event)).toBe('acme/app/feature/login');
    expect(fillTemplate('[{{ event.payload.constructor }}]', event)).toBe('[]');
    expect(fillTemplate('project={{ event.project }}', null)).toBe('project=');
    expect(fillInputs({ url: '{{ event.url }}', who: '{{ event.actor }}' }, event)).toEqual({ url: event.url, who: 'octocat' });
  });

  it('caps a filled value', () => {
    const event = pullRequestEvent({ payload: { big: 'x'.repeat(INPUT_VALUE_MAX_CHARS + 500) } });
    expect(fillTemplate('{{ event.payload.big }}', event)).toHaveLength(INPUT_VALUE_MAX_CHARS);
  });
});

describe('trigger configuration', () => {
  const body = (action: Record<string, unknown>, match: Record<string, unknown> = { event: '*' }) => ({
    name: 'review PRs',
    trigger: { source: 'git-b', match, action: { agent_id: 'agt_x', session_template: 'default', ...action } },
  });
  const firstIssuePath = (value: unknown) => {
    const result = createTriggerBody.safeParse(value);
    return result.success ? null : result.error.issues[0]!.path.join('.');
  };

  it('names the field that is wrong', () => {
    expect(firstIssuePath(body({ inputs: { url: '{{ event.url }}' } }))).toBeNull();
    expect(firstIssuePath(body({ inputs: { url: '{{ url }}' } }))).toBe('trigger.action.inputs.url');
    expect(firstIssuePath(body({ inputs: { URL: '{{ event.url }}' } }))).toBe('trigger.action.inputs.URL');
    expect(firstIssuePath(body({ session_template: 'poetry' }))).toBe('trigger.action.session_template');
    expect(firstIssuePath(body({}, { event: '*', project_regex: '(a' }))).toBe('trigger.match.project_regex');
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`input_${i}`, 'x']));
    expect(firstIssuePath(body({ inputs: many }))).toBe('trigger.action.inputs');
    expect(createTriggerBody.parse(body({}))).toMatchObject({ enabled: true, trigger: { action: { inputs: {} } } });
  });
});

describe('session templates', () => {
  const ctx = (overrides: Partial<Parameters<typeof planSession>[1]> = {}) => ({
    event: pullRequestEvent(),
    inputs: {} as Record<string, string>,
    origin: 'trigger:trg_1',
    modelConfigured: true,
    ...overrides,
  });

  it('lists every template it knows', () => {
    const names = sessionTemplateCatalog().map((t) => t.name);
    expect(names).toEqual(['default', 'code-review', 'import-requirements', 'import-bugs']);
    expect(names.every(isSessionTemplate)).toBe(true);
    expect(isSessionTemplate('poetry')).toBe(false);
  });

  it("default: named after the event, the agent's route, the event and inputs in the question", () => {
    const plan = planSession('default', ctx({ inputs: { title: 'Add login', empty: '' } }));
    expect(plan.route).toBeNull();
    expect(plan.sessionName).toBe('pull_request.opened from git-b on acme/app');
    expect(plan.metadata).toEqual({
      event_id: 'delivery-1',
      event_source: 'git-b',
      event: 'pull_request.opened',
      project: 'acme/app',
      actor: 'octocat',
      url: 'https://git.example.com/acme/app/pull/7',
    });
    expect(plan.question).toContain('pull_request.opened from git-b on acme/app');
    expect(plan.question).toContain('title: Add login');
    expect(plan.question).not.toContain('empty:');

    const scheduled = planSession('default', ctx({ event: null, origin: 'cron:crn_1', inputs: {} }));
    expect(scheduled).toEqual({ sessionName: 'Scheduled task (cron:crn_1)', metadata: {}, route: null, question: '' });
  });

  it('code-review: the model route when one is configured, rules otherwise; link first, diff after', () => {
    const diff = 'diff --git a/x.js b/x.js\n+++ b/x.js\n+eval(input)';
    const withModel = planSession(
      'code-review',
      ctx({ inputs: { pr_url: 'https://git.example.com/acme/app/pull/9', title: 'Fix', diff } }),
    );
    expect(withModel.route).toBe('@review@llm@default@');
    expect(withModel.question.split('\n')[0]).toBe('Review the change https://git.example.com/acme/app/pull/9');
    expect(withModel.question).toContain('title: Fix');
    expect(withModel.question.endsWith(diff)).toBe(true);
    expect(withModel.question).not.toContain('diff: ');

    const withoutModel = planSession('code-review', ctx({ modelConfigured: false }));
    expect(withoutModel.route).toBe('@review@rules@default@');
    expect(withoutModel.question).toBe('Review the change https://git.example.com/acme/app/pull/7');
    expect(withoutModel.sessionName).toBe('Review https://git.example.com/acme/app/pull/7');
  });

  it('imports: the items input, else the event text, else the payload as JSON', () => {
    const items = 'title,priority\nDark mode,low';
    expect(planSession('import-requirements', ctx({ inputs: { items } }))).toMatchObject({
      route: '@import@structured@requirements@',
      question: items,
    });
    expect(planSession('import-bugs', ctx()).question).toBe('plain text of the event');
    const payload = { items: [{ title: 'Crash on start' }] };
    const bugs = planSession('import-bugs', ctx({ event: pullRequestEvent({ payload }) }));
    expect(bugs).toMatchObject({ route: '@import@structured@bugs@', question: JSON.stringify(payload) });
  });

  it('caps the question and the name', () => {
    const plan = planSession('import-bugs', ctx({ inputs: { items: 'y'.repeat(QUESTION_MAX_CHARS + 10) } }));
    expect(plan.question).toHaveLength(QUESTION_MAX_CHARS);
    const named = planSession('code-review', ctx({ inputs: { pr_url: `https://x.example/${'p'.repeat(300)}` } }));
    expect(named.sessionName.length).toBeLessThanOrEqual(200);
  });
});

describe('agent tasks of a trigger', () => {
  it('have one workflow id per (trigger, event id) and carry the filled inputs', () => {
    expect(agentTaskWorkflowId('trg_a', 'e-1')).toBe(agentTaskWorkflowId('trg_a', 'e-1'));
    expect(agentTaskWorkflowId('trg_a', 'e-1')).toMatch(/^agent-task-trg_a-[0-9a-f]{24}$/);
    expect(agentTaskWorkflowId('trg_a', 'e-2')).not.toBe(agentTaskWorkflowId('trg_a', 'e-1'));
    expect(agentTaskWorkflowId('trg_b', 'e-1')).not.toBe(agentTaskWorkflowId('trg_a', 'e-1'));

    const event = pullRequestEvent();
    const trigger = {
      trigger_id: 'trg_a',
      name: 'n',
      enabled: true,
      inbound_path: null,
      problems: [],
      created_at: '',
      updated_at: '',
      trigger: {
        source: 'git-b' as const,
        match: { event: '*' },
        action: {
          agent_id: 'agt_1',
          session_template: 'code-review' as const,
          inputs: { pr_url: '{{ event.payload.pull_request.html_url }}' },
        },
      },
    };
    const task = agentTaskFor('tenant-1', trigger, event);
    expect(task).toEqual({
      task: {
        tenantId: 'tenant-1',
        origin: 'trigger:trg_a',
        key: 'delivery-1',
        agentId: 'agt_1',
        sessionTemplate: 'code-review',
        inputs: { pr_url: 'https://git.example.com/acme/app/pull/7' },
        question: 'Review the change https://git.example.com/acme/app/pull/7',
        event,
      },
    });
    const lacking = {
      ...trigger,
      trigger: { ...trigger.trigger, action: { ...trigger.trigger.action, inputs: { pr_url: '{{ event.payload.pr.url }}' } } },
    };
    expect(agentTaskFor('tenant-1', lacking, event)).toEqual({ error: expect.stringContaining('event.payload.pr.url') });
  });
});
