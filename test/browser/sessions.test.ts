import type { Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/consumer';
import { chatAnswer, chatError, chatToolCall, streamedAnswer, streamedToolCall, type WireChatRequest } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/** An answer with Markdown and HTML in it: the console shows it as text and runs none of it. */
const ANSWER = '**Refunds** take five days.\n\n<img src="x" onerror="window.__injected = true"> `done`';
const TEMPORAL_UI_URL = 'http://127.0.0.1:8233';

/**
 * Sessions & runs and the Event log in headless Chromium against the real stack (API with its
 * built console, a worker, a scripted model): runs made through the API (one completed, one
 * failed) in the runs list and its status filter, a run's page (event timeline, answer as text,
 * the Temporal UI link), a session's transcript and runs, sessions by agent, a run waiting for an
 * approval followed live until it ends, cancelling a run after confirming, and the event log
 * filtered by name (and refused to a member with the API's message). Every page visited is checked
 * with axe-core and photographed into test/browser/screenshots.
 */
describe('sessions, runs and the event log in a browser', () => {
  const model = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let ui: ConsoleBrowser;
  let page: Page;
  let agentId: string;
  let approverId: string;
  let sessionId: string;
  let completedTrace: string;
  let failedTrace: string;

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, ...(body ? { body } : {}) });
  const newSession = async (agent: string, name: string) =>
    (await call('POST', `/v1/combo/agents/${agent}/sessions`, { name })).json.data.session_id as string;
  const runStatus = async (traceId: string) => (await call('GET', `/v1/combo/completions/${traceId}`)).json.data.status as string;
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });
  const signIn = async (key: string) => {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const runsTable = () => page.getByRole('table', { name: 'Runs', exact: true });
  const timeline = () => page.getByRole('list', { name: 'Events of the run, in order' });

  beforeAll(async () => {
    // The model: "fail" in the question is refused (a 4xx is not retried: the run fails with 30001); "time" calls
    // the current_time tool first; anything else is answered with ANSWER.
    model.reply = (request) => {
      const body = request.body as WireChatRequest;
      const question = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const afterTool = body.messages.at(-1)?.role === 'tool';
      if (question.includes('fail'))
        return { status: 400, body: chatError('the scripted model refuses this question', 'invalid_request_error') };
      if (question.includes('time') && !afterTool) {
        const calls = [{ id: 'call_time', name: 'current_time', args: {} }];
        return body.stream ? { stream: streamedToolCall(calls) } : { body: chatToolCall(calls) };
      }
      const text = afterTool ? 'It is time for tea.' : ANSWER;
      return body.stream ? { stream: streamedAnswer(text) } : { body: chatAnswer(text) };
    };
    const modelUrl = await model.start();
    api = await startTestApi({ LLM_BASE_URL: modelUrl, LLM_MODEL: 'scripted-model', TEMPORAL_UI_URL });
    worker = await startTestWorker(api, { dispatcher: false });
    ui = await openConsoleBrowser(api.url);
    page = ui.page;

    agentId = (await call('POST', '/v1/combo/agents', { name: 'browser helper', instructions: 'Answer briefly.' })).json.data.agent_id;
    approverId = (
      await call('POST', '/v1/combo/agents', {
        name: 'browser approver',
        tools: ['current_time'],
        approval: { tools: ['current_time'], timeout_s: 120 },
      })
    ).json.data.agent_id;
    sessionId = await newSession(agentId, 'refund questions');
    const completed = await call('POST', `/v1/combo/agents/${agentId}/completions`, {
      session_id: sessionId,
      question: 'How long do refunds take?',
    });
    expect(completed.json.code).toBe(0);
    completedTrace = completed.json.data.trace_id;
    const failed = await call('POST', `/v1/combo/agents/${agentId}/completions`, { session_id: sessionId, question: 'Please fail' });
    expect(failed.json.code).toBe(30001);
    failedTrace = await eventually(async () => {
      const runs = await call('GET', `/v1/combo/sessions/${sessionId}/completions?status=failed`);
      return runs.json.data.items[0]?.trace_id as string | undefined;
    });
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

  it('lists the runs made through the API, and the status filter narrows them', async () => {
    await page.goto(`${api.url}/console/`);
    await signIn(api.adminKey);
    await heading('Overview').waitFor();
    await nav('Sessions & runs').click();
    await heading('Sessions & runs').waitFor();
    await runsTable().getByRole('link', { name: completedTrace }).waitFor();
    await runsTable().getByRole('link', { name: failedTrace }).waitFor();
    const completedRow = runsTable().getByRole('row', { name: new RegExp(completedTrace) });
    await completedRow.getByText('completed', { exact: true }).waitFor();
    // Each run says what was asked.
    await completedRow.getByText('How long do refunds take?', { exact: true }).waitFor();
    await runsTable()
      .getByRole('row', { name: new RegExp(failedTrace) })
      .getByText('30001', { exact: true })
      .waitFor();
    await expectAccessible(page, 'the runs list');
    await screenshot(page, 'sessions-runs');

    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('search', { name: 'Filter runs' }).getByRole('button', { name: 'Apply' }).click();
    await runsTable().getByRole('link', { name: completedTrace }).waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
    await expect(runsTable().locator('tbody tr').count()).resolves.toBe(1);
    await runsTable().getByRole('link', { name: failedTrace }).waitFor();
    await expectAccessible(page, 'the runs list filtered by status');
    await screenshot(page, 'sessions-runs-failed');
  }, 90_000);

  it("shows a failed run's error and its timeline", async () => {
    await runsTable().getByRole('link', { name: failedTrace }).click();
    await heading(`Run ${failedTrace}`).waitFor();
    const status = page.getByRole('region', { name: 'Status' });
    await status.getByText('The run failed').waitFor();
    await status.getByText('30001', { exact: true }).waitFor();
    await page.getByText(/events, to the end of the run/).waitFor();
    await timeline().getByText('error', { exact: true }).waitFor();
    await timeline().getByText('ended: failed').waitFor();
    await expectAccessible(page, "a failed run's page");
    await screenshot(page, 'sessions-run-failed');
  }, 60_000);

  it("shows a run's timeline of events, its answer as text, and its link to the Temporal UI", async () => {
    await page.getByRole('link', { name: 'Sessions & runs', exact: true }).first().click();
    await heading('Sessions & runs').waitFor();
    // The section's own link: the list without filters.
    await runsTable().getByRole('link', { name: completedTrace }).click();
    await heading(`Run ${completedTrace}`).waitFor();

    // The stored events of an ended run, read to `done`, in order.
    await page.getByText(/events, to the end of the run/).waitFor();
    const names = await timeline().locator('.sess-event-name').allInnerTexts();
    expect(names[0]).toBe('thinking');
    expect(names).toContain('message');
    expect(names.at(-1)).toBe('done');
    await timeline()
      .getByText(/accepted, route/)
      .waitFor();
    await timeline()
      .getByText(/ended: answered/)
      .waitFor();
    // Each entry says when it came after the first event, with its recorded time on hover.
    const offsets = timeline().locator('time.sess-event-offset');
    expect(await offsets.count()).toBe(await timeline().getByRole('listitem').count());
    expect(await offsets.first().innerText()).toBe('+0 ms');
    const recorded = await offsets.evaluateAll((times) => times.map((t) => Date.parse(t.getAttribute('datetime') ?? '')));
    expect(recorded.every((at, i) => Number.isFinite(at) && (i === 0 || at >= recorded[i - 1]!))).toBe(true);
    expect(await offsets.last().getAttribute('title')).toBe(new Date(recorded.at(-1)!).toISOString());
    // Each event's data opens as formatted JSON.
    const done = timeline().getByRole('listitem').last();
    await done.locator('summary').click();
    await done.locator('pre').getByText(`"trace_id": "${completedTrace}"`).waitFor();

    // The answer's Markdown and HTML are shown as text: no element made of it, no script run.
    const answer = page.getByRole('region', { name: 'Answer' });
    await answer.getByText('**Refunds** take five days.', { exact: false }).waitFor();
    expect(await answer.innerText()).toContain('<img src="x" onerror="window.__injected = true">');
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('window.__injected')).toBeUndefined();

    // The run in the Temporal UI, by its TraceId search attribute, in a new tab.
    const temporal = page.getByRole('link', { name: /Open in the Temporal UI/ });
    const href = (await temporal.getAttribute('href')) ?? '';
    expect(href.startsWith(`${TEMPORAL_UI_URL}/namespaces/`)).toBe(true);
    expect(decodeURIComponent(href)).toContain(`TraceId="${completedTrace}"`);
    expect(href).toContain('TraceId');
    expect(await temporal.getAttribute('target')).toBe('_blank');
    expect(await temporal.getAttribute('rel')).toContain('noopener');
    await page.getByRole('region', { name: 'Status' }).getByText('completed', { exact: true }).waitFor();
    await expectAccessible(page, "a run's page");
    await screenshot(page, 'sessions-run');
  }, 60_000);

  it("shows a session's transcript and its runs", async () => {
    await page.getByRole('region', { name: 'Status' }).getByRole('link', { name: sessionId }).click();
    await heading('Session refund questions').waitFor();
    const transcript = page.getByRole('list', { name: 'Transcript, oldest first' });
    const messages = transcript.getByRole('listitem');
    await messages.first().waitFor();
    // Oldest first: the first question, then its answer (its Markdown drawn, its HTML as text), then the question of the failed run.
    await expect(messages.nth(0).innerText()).resolves.toContain('How long do refunds take?');
    await expect(messages.nth(0).innerText()).resolves.toContain('User');
    await expect(messages.nth(1).innerText()).resolves.toContain('<img src="x"');
    await messages.nth(1).locator('strong').getByText('Refunds', { exact: true }).waitFor();
    await expect(messages.nth(1).innerText()).resolves.toContain('Assistant');
    expect(await page.locator('main img').count()).toBe(0);
    const runs = page.getByRole('table', { name: 'Runs of this session' });
    await runs.getByRole('link', { name: completedTrace }).waitFor();
    await runs.getByRole('link', { name: failedTrace }).waitFor();
    await expectAccessible(page, "a session's page");
    await screenshot(page, 'sessions-session');
  }, 60_000);

  it("lists every agent's sessions, then an agent's after choosing it", async () => {
    await nav('Sessions & runs').click();
    await heading('Sessions & runs').waitFor();
    await page.getByRole('navigation', { name: 'Sessions and runs views' }).getByRole('link', { name: 'Sessions', exact: true }).click();
    const every = page.getByRole('table', { name: 'Sessions of every agent' });
    await every.getByRole('link', { name: 'refund questions' }).waitFor();
    // The agent by its name, linked to its page.
    const agentLink = every.getByRole('row', { name: /refund questions/ }).getByRole('link', { name: 'browser helper' });
    expect(await agentLink.getAttribute('href')).toBe(`/console/agents/${agentId}`);
    await expectAccessible(page, 'every session');
    await page.getByLabel('Agent', { exact: true }).selectOption(agentId);
    await page.getByRole('button', { name: 'Show sessions' }).click();
    const sessions = page.getByRole('table', { name: `Sessions of ${agentId}` });
    await sessions.getByRole('link', { name: 'refund questions' }).waitFor();
    expect(new URL(page.url()).searchParams.get('agent')).toBe(agentId);
    await expectAccessible(page, 'sessions by agent');
    await screenshot(page, 'sessions-by-agent');
    await sessions.getByRole('link', { name: 'refund questions' }).click();
    await heading('Session refund questions').waitFor();
  }, 60_000);

  it('follows a run waiting for an approval live until it ends, and cancels another after confirming', async () => {
    const waitingSession = await newSession(approverId, 'approvals');
    const start = async (session: string) => {
      const accepted = await call('POST', `/v1/combo/agents/${approverId}/completions`, {
        session_id: session,
        question: 'What time is it?',
        background: true,
      });
      expect(accepted.status).toBe(202);
      const traceId = accepted.json.data.trace_id as string;
      await eventually(async () => ((await runStatus(traceId)) === 'waiting_approval' ? true : undefined));
      return traceId;
    };
    const waiting = await start(waitingSession);

    await nav('Sessions & runs').click();
    await heading('Sessions & runs').waitFor();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await runsTable().getByRole('link', { name: waiting }).click();
    await heading(`Run ${waiting}`).waitFor();
    await page.getByText('Following the run live').waitFor();
    await timeline().getByText('approval_required', { exact: true }).waitFor();
    const approvals = page.getByRole('region', { name: 'Approvals' });
    await approvals.getByText('pending').waitFor();
    await expectAccessible(page, 'a run waiting for an approval');
    await screenshot(page, 'sessions-run-live');

    // Approved here: the same open stream shows the rest of the run as it happens.
    await approvals.getByRole('button', { name: 'Approve current_time' }).click();
    await timeline()
      .getByText(/ended: answered/)
      .waitFor({ timeout: 30_000 });
    await timeline().getByText('approval_decided', { exact: true }).waitFor();
    await timeline().getByText('tool_result', { exact: true }).waitFor();
    await page.getByText(/events, to the end of the run/).waitFor();
    await page.getByRole('region', { name: 'Status' }).getByText('completed', { exact: true }).waitFor({ timeout: 15_000 });
    await page.getByRole('region', { name: 'Answer' }).getByText('It is time for tea.').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    await screenshot(page, 'sessions-run-approved');

    // Another run, cancelled after confirming.
    const other = await start(await newSession(approverId, 'to cancel'));
    await page.getByRole('link', { name: 'Sessions & runs', exact: true }).first().click();
    await heading('Sessions & runs').waitFor();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await runsTable().getByRole('link', { name: other }).click();
    await heading(`Run ${other}`).waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the cancel confirmation');
    await screenshot(page, 'sessions-run-cancel-confirm');
    await dialog.getByRole('button', { name: 'Cancel the run' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('region', { name: 'Status' }).getByText('canceled', { exact: true }).first().waitFor();
    await timeline()
      .getByText(/ended: canceled/)
      .waitFor();
    expect(await runStatus(other)).toBe('canceled');
    await screenshot(page, 'sessions-run-canceled');
  }, 90_000);

  it('filters the event log by name, showing the session.created of a session made through the API', async () => {
    await nav('Event log').click();
    await heading('Event log').waitFor();
    const events = page.getByRole('table', { name: 'Recorded events' });
    await events.getByRole('row').nth(1).waitFor();
    await expectAccessible(page, 'the event log');
    await screenshot(page, 'events-log');

    await page.getByLabel('Event', { exact: true }).selectOption('session.created');
    await page.getByRole('search', { name: 'Filter events' }).getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/event=session\.created/);
    // Only session.created events are listed once the filtered page has come (the previous one stays until then).
    const names = await eventually(async () => {
      const shown = await events.locator('tbody .evt-name').allInnerTexts();
      return shown.length >= 3 && shown.every((name) => name === 'session.created') ? shown : undefined;
    });
    expect(names).toHaveLength(3);
    const row = events.getByRole('row', { name: new RegExp(`session\\.created.*${sessionId}`) });
    await row.locator('summary').click();
    await row.locator('pre').getByText(`"session_id": "${sessionId}"`).waitFor();
    await expectAccessible(page, 'the event log filtered by name');
    await screenshot(page, 'events-log-filtered');

    // The event's session link opens the session.
    await row.getByRole('link', { name: sessionId }).click();
    await heading('Session refund questions').waitFor();
  }, 60_000);

  it("shows a member the API's refusal of the event log", async () => {
    const member = await call('POST', '/v1/api-keys', { name: 'browser member', role: 'member' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(member.json.data.api_key as string);
    // Back where the admin signed out (a session page), now as the member.
    await page.getByTestId('user-id').waitFor();
    await nav('Event log').click();
    await heading('Event log').waitFor();
    const alert = page.getByRole('alert');
    await alert.getByText('Only admins can read the event log').waitFor();
    expect(await alert.innerText()).toContain('10003');
    await expectAccessible(page, 'the event log refused to a member');
    await screenshot(page, 'events-log-member');
  }, 60_000);
});
