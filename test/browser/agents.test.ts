import type { Locator, Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/consumer';
import { chatRequests, scriptedReplies, streamedAnswer, streamedToolCall } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/** Run in the page by evaluate(): whether the element has the focus (the service's tsconfig has no DOM types). */
const isFocused = (element: unknown) =>
  element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement;

const TEMPORAL_UI = 'http://127.0.0.1:8233/';
const STREAMED = 'Refunds take five working days from the moment the parcel is back.';

/**
 * The console's Agents section in headless Chromium against the real stack, with a scripted model:
 * an agent created through the form generated from the API's schema (the API's validation message
 * on its field first), edited, then tried in its playground: an answer streamed piece by piece on a
 * picked route, a tool call that waits for approval and is approved (then opened with its result),
 * a slow run cancelled, an earlier session picked after a reload (its messages, and its run waiting
 * for approval followed and rejected); last, the delete that asks again because a cron job runs the
 * agent, and deletes both. Every state is checked with axe-core and photographed.
 */
describe('the Agents section of the console', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let ui: ConsoleBrowser;
  let page: Page;
  const model = new ScriptedUpstream();
  const scriptModel = scriptedReplies(model);
  let agentId: string;
  let sessionId: string;

  beforeAll(async () => {
    const modelUrl = await model.start();
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      LLM_TIMEOUT_MS: '20000',
      RATE_LIMIT_COMPLETIONS_PER_MIN: '10000',
      RATE_LIMIT_DEFAULT_PER_MIN: '100000',
      TEMPORAL_UI_URL: TEMPORAL_UI,
    });
    worker = await startTestWorker(api, { dispatcher: false });
    ui = await openConsoleBrowser(api.url);
    page = ui.page;
    await page.goto(`${api.url}/console/`);
    await page.getByLabel('API key').fill(api.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Overview').waitFor();
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await worker?.stop();
    await api?.close();
    await model.stop();
  }, 60_000);

  afterEach(() => {
    // No page error and no Content-Security-Policy refusal, whatever the test did.
    expect(ui.problems).toEqual([]);
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const call = (method: string, path: string, body?: unknown) =>
    api.call(method, path, { key: api.adminKey, ...(body !== undefined ? { body } : {}) });
  /** The control labelled `label` (a required one's label ends in its mark, " *"). */
  const field = (label: string) => page.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?$`));
  /** The error the form shows under the control labelled `label`. */
  const fieldError = (label: string) => page.locator('.agents-field', { has: field(label) }).locator('.agents-field-error');
  const lastTurn = () => page.locator('.pg-turn').last();
  const ask = async (question: string) => {
    await page.getByLabel('Message', { exact: true }).fill(question);
    await page.getByRole('button', { name: 'Send' }).click();
  };
  const runFacts = (turn: Locator) => turn.getByTestId('run-facts');

  it('lists no agents yet, and creates one through the form after showing the API’s validation message on its field', async () => {
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: /^Agents/ })
      .click();
    await heading('Agents').waitFor();
    await page.getByText('No agents yet').waitFor();
    await expectAccessible(page, 'the empty agent list');
    await screenshot(page, 'agents-empty');

    await page.getByRole('link', { name: 'New agent' }).click();
    await heading('New agent').waitFor();
    // The form comes from the served CreateAgentRequest: its fields, descriptions and bounds.
    await field('Name').waitFor();
    await page.getByText('system instructions given to the model on every run').waitFor();
    expect(await field('Temperature').getAttribute('max')).toBe('2');
    await page.getByRole('group', { name: 'Knowledge bases' }).getByText('No knowledge bases yet').waitFor();
    await expectAccessible(page, 'the new agent form');
    await screenshot(page, 'agents-new');

    await field('Name').fill('Helper');
    await field('Description').fill('Answers questions about refunds');
    await field('Instructions').fill('Answer briefly and politely.');
    await field('Temperature').fill('0.3');
    await page.getByRole('group', { name: 'Built-in tools' }).getByLabel('current_time').check();
    await page.getByLabel('Enable approval of tool calls').check();
    await page.getByRole('group', { name: 'Tools that need approval' }).getByLabel('current_time').check();
    await field('Approval timeout (seconds)').fill('60');
    await page.getByRole('button', { name: 'Add to labels' }).click();
    await field('Labels 1: key').fill('team');
    await field('Labels 1: value').fill('support');
    // A route of the right shape whose processor does not exist: only the API knows.
    await field('Default route').fill('@chat@nope@default@');
    await page.getByRole('button', { name: 'Create agent' }).click();

    await page.getByRole('alert').getByText('Could not create the agent').waitFor();
    await fieldError('Default route').getByText('unknown processor "nope"').waitFor();
    expect(await field('Default route').getAttribute('aria-invalid')).toBe('true');
    expect(await field('Default route').evaluate(isFocused)).toBe(true);
    expect(await page.getByRole('alert').innerText()).toContain('body.default_route');
    await expectAccessible(page, 'the new agent form with a validation error');
    await screenshot(page, 'agents-new-invalid');

    await field('Default route').fill('@chat@llm@default@');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await heading('Helper').waitFor();
    await page.getByText('Agent "Helper" created').waitFor();
    agentId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(agentId).toMatch(/^agt_/);
    const created = (await call('GET', `/v1/combo/agents/${agentId}`)).json.data;
    expect(created).toMatchObject({
      name: 'Helper',
      description: 'Answers questions about refunds',
      instructions: 'Answer briefly and politely.',
      model: { temperature: 0.3 },
      tools: ['current_time'],
      approval: { tools: ['current_time'], timeout_s: 60 },
      default_route: '@chat@llm@default@',
      metadata: { team: 'support' },
    });
  }, 90_000);

  it('edits the agent: the form shows what it has, and saves what it shows', async () => {
    await page.getByRole('region', { name: 'Edit the agent' }).waitFor();
    expect(await field('Temperature').inputValue()).toBe('0.3');
    expect(await field('Labels 1: value').inputValue()).toBe('support');
    expect(await page.getByLabel('Enable approval of tool calls').isChecked()).toBe(true);
    // Separation of duties stays off: the playground test below approves the admin's own run.
    expect(await page.getByLabel('Separation of duties').isChecked()).toBe(false);
    await field('Description').fill('Answers refund questions, checked by a person');
    await field('Temperature').fill('0.5');
    await field('Max tokens per call').fill('800');
    // An empty instruction is cleared (PUT replaces what it names), as the form shows.
    await field('Instructions').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Agent "Helper" saved').waitFor();
    const saved = (await call('GET', `/v1/combo/agents/${agentId}`)).json.data;
    expect(saved).toMatchObject({
      description: 'Answers refund questions, checked by a person',
      instructions: '',
      model: { temperature: 0.5, max_tokens: 800 },
      approval: { tools: ['current_time'], timeout_s: 60, separate_duties: false },
      metadata: { team: 'support' },
    });
    await expectAccessible(page, 'the agent form');
    await screenshot(page, 'agents-edit');

    await page.getByRole('link', { name: '← All agents' }).click();
    await heading('Agents').waitFor();
    const row = page.getByRole('row', { name: /Helper/ });
    await row.getByText('Answers refund questions, checked by a person').waitFor();
    await row.getByText('1 tool, approvals').waitFor();
    await expectAccessible(page, 'the agent list');
    await screenshot(page, 'agents-list');

    // Searched by name on the server: a part of it, in any case; the search stays in the address.
    const search = page.getByRole('search', { name: 'Filter agents' });
    await search.getByLabel('Name contains').fill('nobody');
    await search.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/name=nobody/);
    await page.getByText('No agent with "nobody" in the name').waitFor();
    await expectAccessible(page, 'the agent list, searched without a match');
    await search.getByLabel('Name contains').fill('HELP');
    await search.getByRole('button', { name: 'Apply' }).click();
    await row.waitFor();
    await search.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((url) => !url.search.includes('name='));
    await row.waitFor();
  }, 60_000);

  it('streams an answer as it is written on the route picked, with its cost, stop reason and links', async () => {
    await page.getByRole('link', { name: 'Playground of Helper' }).click();
    await heading('Playground: Helper').waitFor();
    await page.getByText('A new conversation').waitFor();
    // The route selector lists the scenarios' routes with what they do.
    await page.getByLabel('Route', { exact: true }).selectOption('@chat@llm@detailed@');
    // What the route's parts do, from the catalogue.
    await page.getByText('Thorough answers with headings or lists and the reasoning explained.').waitFor();
    await expectAccessible(page, 'the playground');
    await screenshot(page, 'agents-playground');

    scriptModel({ stream: streamedAnswer(STREAMED, { pieces: 6 }), chunkDelayMs: 400 });
    await ask('How long do refunds take?');
    const turn = lastTurn();
    const answer = turn.getByTestId('answer');
    // The text grows before the run ends.
    const seen: string[] = [];
    let photographed = false;
    await eventually(async () => {
      const text = await answer.innerText().catch(() => '');
      if (text && STREAMED.startsWith(text) && text !== seen.at(-1)) seen.push(text);
      if (!photographed && seen.length === 2) {
        photographed = true;
        await screenshot(page, 'agents-playground-streaming');
      }
      return (await runFacts(turn).isVisible()) ? true : undefined;
    }, 30_000);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.filter((text) => text.length < STREAMED.length).length).toBeGreaterThanOrEqual(1);
    expect(await answer.innerText()).toBe(STREAMED);

    // The model was asked on the picked route (its mode's guidance is in the system prompt).
    expect((await turn.locator('.pg-route').innerText()).trim()).toBe('@chat@llm@detailed@');
    expect(chatRequests(model)).toHaveLength(1);
    const facts = runFacts(turn);
    await facts.getByText('answered').waitFor();
    expect(await facts.innerText()).toMatch(/\d+ tokens · \d+\.\d s/);
    const runLink = facts.getByRole('link', { name: /^Run trc_/ });
    const traceId = (await runLink.innerText()).replace(/^Run /, '').trim();
    expect(await runLink.getAttribute('href')).toBe(`/console/sessions/runs/${traceId}`);
    const temporal = facts.getByRole('link', { name: /Temporal UI/ });
    await temporal.waitFor();
    expect(await temporal.getAttribute('href')).toContain(TEMPORAL_UI.replace(/\/$/, ''));
    await page
      .getByRole('status')
      .getByText(/^Answered: \d+ tokens/)
      .waitFor();

    // The thinking phases open up.
    await turn.locator('.pg-thinking summary').first().click();
    await turn.getByText('Accepted on @chat@llm@detailed@').waitFor();
    await expectAccessible(page, 'the playground with an answer');
    await screenshot(page, 'agents-playground-answer');

    const run = (await call('GET', `/v1/combo/completions/${traceId}`)).json.data;
    expect(run).toMatchObject({ status: 'completed', answer: STREAMED, route: '@chat@llm@detailed@' });
    sessionId = run.session_id;
    // The new session is the one picked now.
    expect(await page.getByLabel('Session', { exact: true }).inputValue()).toBe(sessionId);
  }, 90_000);

  it('holds a tool call for approval, runs it once approved, and opens the call with its result', async () => {
    await page.getByLabel('Route', { exact: true }).selectOption('');
    scriptModel(
      { stream: streamedToolCall([{ name: 'current_time', args: { timezone: 'UTC' } }]) },
      { stream: streamedAnswer('It is past noon in UTC.') },
    );
    await ask('What time is it?');
    const turn = lastTurn();
    const approval = turn.getByRole('group', { name: /Approval needed/ });
    await approval.waitFor({ timeout: 30_000 });
    await approval.getByText('"timezone": "UTC"').waitFor();
    await page.getByRole('status').getByText('The run waits for your approval of a tool call.').waitFor();
    const traceId = await eventually(async () => {
      const runs = (await call('GET', `/v1/combo/sessions/${sessionId}/completions?status=waiting_approval`)).json.data.items;
      return runs[0]?.trace_id as string | undefined;
    });
    await expectAccessible(page, 'the playground waiting for an approval');
    await screenshot(page, 'agents-playground-approval');

    await approval.getByLabel('Comment (optional)').fill('fine to read the clock');
    await approval.getByRole('button', { name: 'Approve current_time' }).click();
    await turn
      .getByRole('group', { name: /^Approval: / })
      .getByText('approved')
      .waitFor();
    await turn.getByTestId('answer').getByText('It is past noon in UTC.').waitFor({ timeout: 30_000 });
    await runFacts(turn).getByText('answered').waitFor();

    const toolCall = turn.locator('details.pg-tool');
    await toolCall.getByText('with its result').waitFor();
    expect(await toolCall.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(false);
    await toolCall.locator('summary').click();
    await toolCall.getByText('Result', { exact: true }).waitFor();
    expect(await toolCall.locator('pre').first().innerText()).toContain('"timezone": "UTC"');
    expect((await toolCall.locator('pre').nth(1).innerText()).length).toBeGreaterThan(2);
    await expectAccessible(page, 'the playground with an approved tool call');
    await screenshot(page, 'agents-playground-tool');

    const run = (await call('GET', `/v1/combo/completions/${traceId}`)).json.data;
    expect(run).toMatchObject({
      status: 'completed',
      approvals: [
        { tool: 'current_time', status: 'approved', comment: 'fine to read the clock', decided_by: expect.stringMatching(/^user:/) },
      ],
    });
  }, 90_000);

  it('cancels a slow run while it streams', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `).join('');
    scriptModel({ stream: streamedAnswer(words, { pieces: 40 }), chunkDelayMs: 150 });
    await ask('Count slowly.');
    const turn = lastTurn();
    await turn
      .getByTestId('answer')
      .getByText(/word2 /)
      .waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await runFacts(turn).getByText('canceled').waitFor({ timeout: 30_000 });
    await page.getByRole('status').getByText('The run was canceled.').waitFor();
    const partial = await turn.getByTestId('answer').innerText();
    expect(words.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(words.length);
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    await expectAccessible(page, 'the playground after a cancel');
    await screenshot(page, 'agents-playground-canceled');

    const runs = (await call('GET', `/v1/combo/sessions/${sessionId}/completions`)).json.data.items;
    expect(runs[0]).toMatchObject({ status: 'canceled', stop_reason: 'canceled' });
  }, 60_000);

  it('picks an earlier session: its messages, and its run still waiting for approval, followed and rejected', async () => {
    scriptModel(
      { stream: streamedToolCall([{ name: 'current_time', args: {} }]) },
      { stream: streamedAnswer('Without the clock I cannot tell.') },
    );
    await ask('And what time is it now?');
    await lastTurn()
      .getByRole('group', { name: /Approval needed/ })
      .waitFor({ timeout: 30_000 });

    // A reload forgets the page (and asks to sign in again); the run waits on in the service.
    await page.reload();
    await page.getByLabel('API key').fill(api.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Playground: Helper').waitFor();
    const session = page.getByLabel('Session', { exact: true });
    await session.locator(`option[value="${sessionId}"]`).waitFor({ state: 'attached' });
    await session.selectOption(sessionId);
    const transcript = page.getByRole('list', { name: 'Conversation' });
    await transcript.getByText('How long do refunds take?').waitFor();
    await transcript.getByText(STREAMED).waitFor();
    await transcript.getByText('canceled').first().waitFor();
    const turn = lastTurn();
    await turn.getByText('A run was going on this session when you picked it').waitFor();
    const approval = turn.getByRole('group', { name: /Approval needed/ });
    await approval.waitFor({ timeout: 30_000 });
    await expectAccessible(page, 'the playground on an earlier session with a run waiting');
    await screenshot(page, 'agents-playground-history');

    await approval.getByLabel('Comment (optional)').fill('not now');
    await approval.getByRole('button', { name: 'Reject current_time' }).click();
    await turn
      .getByRole('group', { name: /^Approval: / })
      .getByText('rejected')
      .waitFor();
    await turn.getByTestId('answer').getByText('Without the clock I cannot tell.').waitFor({ timeout: 30_000 });
    await runFacts(turn).getByText('answered').waitFor();
    // The model read the rejection with its comment instead of the tool's result.
    expect(JSON.stringify(chatRequests(model).at(-1)!.messages)).toContain('not now');
    await screenshot(page, 'agents-playground-rejected');
  }, 90_000);

  it('draws an answer written in Markdown, leaving HTML in it as text and images as links', async () => {
    const markdown = [
      'Refunds, **in short**:',
      '',
      '1. Send the parcel back.',
      '2. Wait five days.',
      '',
      '| step | days |',
      '| --- | --- |',
      '| return | 2 |',
      '',
      'See [the policy](https://example.com/refunds) <script>alert(1)</script> ![chart](https://example.com/chart.png)',
    ].join('\n');
    scriptModel({ stream: streamedAnswer(markdown, { pieces: 4 }) });
    await ask('Summarise the refund policy.');
    const answer = lastTurn().getByTestId('answer');
    await answer.locator('strong').getByText('in short').waitFor({ timeout: 30_000 });
    await runFacts(lastTurn()).getByText('answered').waitFor();
    expect(await answer.locator('ol > li').allInnerTexts()).toEqual(['Send the parcel back.', 'Wait five days.']);
    expect(await answer.getByRole('cell', { name: 'return' }).count()).toBe(1);
    const policy = answer.getByRole('link', { name: 'the policy' });
    expect([await policy.getAttribute('href'), await policy.getAttribute('rel')]).toEqual([
      'https://example.com/refunds',
      'noopener noreferrer',
    ]);
    // No element from the HTML, no image fetched: the picture is a link to it.
    expect(await answer.locator('script, img').count()).toBe(0);
    expect(await answer.getByRole('link', { name: 'chart' }).getAttribute('href')).toBe('https://example.com/chart.png');
    await expectAccessible(page, 'an answer in Markdown');
    await screenshot(page, 'agents-playground-markdown');
  }, 60_000);

  it('offers the session a chat made when the page was left while its run went on', async () => {
    await page.getByLabel('Session', { exact: true }).selectOption('');
    await page.getByText('A new conversation').waitFor();
    scriptModel({ stream: streamedAnswer('A long answer, written slowly for whoever waits.', { pieces: 8 }), chunkDelayMs: 500 });
    await ask('Take your time.');
    // Under way: part of the answer is in.
    await lastTurn().getByTestId('answer').getByText(/\S/).waitFor({ timeout: 30_000 });
    const made = (await call('GET', `/v1/combo/agents/${agentId}/sessions?page_size=1`)).json.data.items[0].session_id as string;
    await page.getByRole('link', { name: '← All agents' }).click();
    await heading('Agents').waitFor();
    await page.getByRole('link', { name: 'Playground of Helper' }).click();
    await heading('Playground: Helper').waitFor();
    await page.getByLabel('Session', { exact: true }).locator(`option[value="${made}"]`).waitFor({ state: 'attached', timeout: 10_000 });
    // Its run ends on its own (nothing of it left going for the tests after).
    await eventually(async () => {
      const runs = (await call('GET', `/v1/combo/sessions/${made}/completions`)).json.data.items;
      return runs[0]?.status === 'completed' ? true : undefined;
    }, 30_000);
  }, 60_000);

  it('asks before deleting, asks again when a cron job runs the agent, and deletes both', async () => {
    const cron = await call('POST', '/v1/cron', {
      name: 'nightly summary',
      cron: '0 3 * * *',
      agent_id: agentId,
      question: 'Summarise the day',
      paused: true,
    });
    expect(cron.json.code).toBe(0);
    const cronId = cron.json.data.cron_id as string;

    await page.getByRole('link', { name: 'Edit agent' }).click();
    await heading('Helper').waitFor();
    await page.getByRole('link', { name: '← All agents' }).click();
    await heading('Agents').waitFor();
    await page.getByRole('button', { name: 'Delete Helper' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Delete the agent "Helper"?' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Cancel' }).evaluate(isFocused)).toBe(true);
    await expectAccessible(page, 'the delete confirmation');
    await screenshot(page, 'agents-delete-confirm');

    await dialog.getByRole('button', { name: 'Delete agent' }).click();
    await dialog.getByRole('heading', { name: 'Also delete what runs "Helper"?' }).waitFor();
    await dialog.getByText(cronId).waitFor();
    await dialog.getByText('1 cron job run this agent').waitFor();
    // Still there: the service refused without cascade.
    expect((await call('GET', `/v1/combo/agents/${agentId}`)).json.code).toBe(0);
    await expectAccessible(page, 'the cascade question');
    await screenshot(page, 'agents-delete-cascade');

    await dialog.getByRole('button', { name: 'Delete all of them' }).click();
    await page.getByText('Agent "Helper" deleted, with 1 cron job').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('No agents yet').waitFor();
    await screenshot(page, 'agents-deleted');
    expect((await call('GET', `/v1/combo/agents/${agentId}`)).json.code).toBe(10004);
    expect((await call('GET', `/v1/cron/${cronId}`)).json.code).toBe(10004);
  }, 60_000);
});
