import type { Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/consumer';
import { chatAnswer, DEFAULT_USAGE } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

/**
 * The console's Costs section in headless Chromium against the real stack: two completions of an
 * agent, answered by a scripted model and recorded by the real worker, show as the agent's bar
 * (named from the agents resource) and today's bar, with the same figures in tables; the range is
 * checked by the API (its field marked); the threshold is set and turned off. axe-core on every
 * state, screenshots in test/browser/screenshots/costs-*.png.
 */
describe('the Costs section of the console', () => {
  const model = new ScriptedUpstream();
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let ui: ConsoleBrowser;
  let page: Page;
  let agentId = '';
  /** The UTC day the runs ended on, as recorded (the day may have changed by the time a test looks for their bar). */
  let runDay = '';
  const tokens = 2 * DEFAULT_USAGE.total_tokens;
  /** The installation's default threshold, far above the runs' tokens. */
  const INSTALLATION_THRESHOLD = 1_000_000;

  beforeAll(async () => {
    const modelUrl = await model.start();
    model.reply = () => ({ body: chatAnswer('done') });
    api = await startTestApi({
      LLM_BASE_URL: modelUrl,
      LLM_MODEL: 'scripted-model',
      COST_THRESHOLD_TOKENS: String(INSTALLATION_THRESHOLD),
    });
    worker = await startTestWorker(api, { dispatcher: false });
    ui = await openConsoleBrowser(api.url);
    page = ui.page;

    // Two completions of one agent; the worker adds their costs to the tenant's totals. Both on one UTC
    // day (one bar holds them): not started in the last minute of a day.
    const dayLeftMs = 86_400_000 - (Date.now() % 86_400_000);
    if (dayLeftMs < 60_000) await new Promise((resolve) => setTimeout(resolve, dayLeftMs + 100));
    const key = api.adminKey;
    agentId = (await api.call('POST', '/v1/combo/agents', { key, body: { name: 'cost reporter' } })).json.data.agent_id as string;
    for (let i = 0; i < 2; i++) {
      const session = (await api.call('POST', `/v1/combo/agents/${agentId}/sessions`, { key, body: {} })).json.data;
      const reply = await api.call('POST', `/v1/combo/agents/${agentId}/completions`, {
        key,
        body: { session_id: session.session_id, question: `question ${i}` },
      });
      expect(reply.json.code).toBe(0);
    }
    await eventually(
      async () => ((await api.services.mongo.db.collection('cost_queue').countDocuments()) === 0 ? true : undefined),
      20_000,
    );
    const days = (await api.call('GET', '/v1/costs?group_by=day', { key })).json.data.groups as Array<{ day: string }>;
    expect(days).toHaveLength(1);
    runDay = days[0]!.day;

    await page.goto(`${api.url}/console/costs`);
    await page.getByLabel('API key').fill(api.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 180_000); // up to a minute of waiting for the next day

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

  const stat = (label: string) => page.locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) });

  it("shows the agent's bar and today's bar, with the figures as tables", async () => {
    await page.getByRole('heading', { level: 1, name: 'Costs' }).waitFor();
    await stat('Tokens')
      .locator('.stat-value', { hasText: String(tokens) })
      .waitFor();
    await stat('Runs').locator('.stat-value', { hasText: '2' }).waitFor();

    const perDay = page.getByRole('img', { name: /^Tokens per day, / });
    await perDay.locator(`rect[data-key="${runDay}"]`).waitFor();
    expect(await perDay.locator(`rect[data-key="${runDay}"] title`).textContent()).toBe(
      `${runDay}: ${tokens} tokens, ${await durationOf()} in 2 runs`,
    );
    // Every day of the default range (30 days) has its place; only the runs' day has a bar.
    expect(await perDay.locator('rect.chart-bar').count()).toBe(1);

    const perAgent = page.getByRole('img', { name: /^Tokens per agent, / });
    await perAgent.locator(`rect[data-key="${agentId}"]`).waitFor();
    // The agent is named, not only its id.
    await perAgent.locator('text', { hasText: 'cost reporter' }).waitFor();
    expect(await perAgent.getAttribute('aria-labelledby')).toBeTruthy();

    // The figures as tables, behind their disclosures.
    await page.getByText('Costs per day as a table').click();
    const dayRow = page.getByRole('table', { name: 'Costs per day' }).getByRole('row', { name: new RegExp(runDay) });
    expect(await dayRow.getByRole('cell').allInnerTexts()).toEqual([String(tokens), await durationOf(), '2']);
    await page.getByText('Costs per agent as a table').click();
    const agentRow = page.getByRole('table', { name: 'Costs per agent' }).getByRole('row', { name: /cost reporter/ });
    expect((await agentRow.getByRole('cell').allInnerTexts())[0]).toBe(String(tokens));
    await expectAccessible(page, 'the costs page');
    await screenshot(page, 'costs');

    // Run time in the charts instead of tokens.
    await page.getByRole('radio', { name: 'Run time' }).check();
    await page.getByRole('img', { name: /^Run time per day, / }).waitFor();
    await page.getByRole('img', { name: /^Run time per agent, / }).waitFor();
    await screenshot(page, 'costs-run-time');
  }, 60_000);

  it('changes the range, the API naming the field of a range it refuses', async () => {
    const range = page.getByRole('search', { name: 'Range of days' });
    await range.getByRole('button', { name: 'Last 7 days' }).click();
    await page.waitForURL(/from=.*&to=/);
    await page
      .getByRole('img', { name: /per day, / })
      .locator(`rect[data-key="${runDay}"]`)
      .waitFor();

    // "To" before "From": until <= since, refused with 10001 naming query.until.
    await range.getByLabel('From (UTC day)').fill('2026-03-10');
    await range.getByLabel('To (UTC day, included)').fill('2026-03-01');
    await range.getByRole('button', { name: 'Show range' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Could not load the costs of this range').waitFor();
    expect(await alert.innerText()).toMatch(/10001[\s\S]*query\.until/);
    expect(await range.getByLabel('To (UTC day, included)').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'the costs page with a refused range');
    await screenshot(page, 'costs-range-refused');

    // A range without runs says so.
    await range.getByLabel('To (UTC day, included)').fill('2026-03-20');
    await range.getByRole('button', { name: 'Show range' }).click();
    await page.getByText('No runs ended in this range').waitFor();
    await page.getByText('No agent ran in this range').waitFor();
    await expectAccessible(page, 'the costs page, an empty range');
    await range.getByRole('button', { name: 'Last 30 days' }).click();
    await page
      .getByRole('img', { name: /per day, / })
      .locator(`rect[data-key="${runDay}"]`)
      .waitFor();
  }, 60_000);

  it("sets the threshold, turns it off, and goes back to the installation's default", async () => {
    const installation = page.getByText(/^The installation's default applies: 1,000,000 tokens per period$/);
    await stat('Threshold').getByText("the installation's default (COST_THRESHOLD_TOKENS)").waitFor();
    const form = page.getByRole('form', { name: 'Set the cost threshold' });
    await form.getByLabel('Tokens per period').fill(String(tokens - 10));
    await form.getByRole('button', { name: 'Set threshold' }).click();
    await page.getByText(`Threshold set to ${tokens - 10} tokens per period`).waitFor();
    await stat('Threshold')
      .locator('.stat-value', { hasText: String(tokens - 10) })
      .waitFor();
    await stat('Threshold').getByText('set for this tenant').waitFor();
    await page.getByRole('progressbar', { name: /against the threshold/ }).waitFor();
    await page.getByText('The threshold is reached for this period').waitFor();
    await expectAccessible(page, 'the costs page with a threshold');
    await screenshot(page, 'costs-threshold-set');
    const set = await api.call('GET', '/v1/costs', { key: api.adminKey });
    expect(set.json.data).toMatchObject({ threshold_tokens: tokens - 10, threshold_source: 'tenant', threshold_exceeded: true });

    await form.getByRole('button', { name: 'Turn the threshold off' }).click();
    await page.getByText('Threshold turned off').waitFor();
    await stat('Threshold').locator('.stat-value', { hasText: 'none' }).waitFor();
    await page.getByRole('progressbar', { name: /against the threshold/ }).waitFor({ state: 'detached' });
    await screenshot(page, 'costs-threshold-off');
    const off = await api.call('GET', '/v1/costs', { key: api.adminKey });
    expect(off.json.data).toMatchObject({ threshold_tokens: null, threshold_source: 'none' });

    await form.getByRole('button', { name: 'Use the installation default' }).click();
    await installation.waitFor();
    await stat('Threshold').getByText("the installation's default (COST_THRESHOLD_TOKENS)").waitFor();
    // Already the default: the button is not offered.
    await page.getByRole('button', { name: 'Use the installation default' }).waitFor({ state: 'detached' });
    await screenshot(page, 'costs-threshold-default');
    const back = await api.call('GET', '/v1/costs', { key: api.adminKey });
    expect(back.json.data).toMatchObject({
      threshold_tokens: INSTALLATION_THRESHOLD,
      threshold_source: 'default',
      threshold_exceeded: false,
    });
  }, 60_000);

  /** The two runs' summed run time as the page writes it (the API's figure). */
  async function durationOf(): Promise<string> {
    const ms = (await api.call('GET', '/v1/costs', { key: api.adminKey })).json.data.duration_ms as number;
    if (ms < 1_000) return `${ms} ms`;
    return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  }
});
