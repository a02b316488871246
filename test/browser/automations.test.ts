import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { chatAnswer } from '../support/scripted-chat';
import { ScriptedUpstream } from '../support/scripted-upstream';
import { startTestWorker } from '../support/worker';

const run = promisify(execFile);

/**
 * A proxy in front of the API on a port known before the API starts, so the API's PUBLIC_BASE_URL
 * (the inbound URL an integration shows) reaches it: the signed example runs as shown.
 */
async function startFrontProxy(): Promise<{ server: Server; origin: string; target: { url: string } }> {
  const target = { url: '' };
  const server = createServer((req, res) => {
    const upstream = request(`${target.url}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, target };
}

/**
 * Automations and Skills in headless Chromium against the real stack (API with its built console,
 * a worker, a scripted model): an integration created with its secret, inbound URL and signed curl
 * command shown once (the command, run by bash, is accepted by the API), rotated and deleted; an
 * event trigger previewed on a sample that matches, one that does not (the failing condition
 * shown), one whose input names a missing path and one the API refuses (the field marked), then
 * created, disabled, enabled and deleted; a cron job refused for its expression, created, paused,
 * resumed, run now (its run linked), backfilled and deleted; a skill refused for its manifest
 * (the field shown), installed, activated on a session and deleted. Every state is checked with
 * axe-core and photographed into test/browser/screenshots.
 */
describe('automations and skills in a browser', () => {
  const model = new ScriptedUpstream();
  let proxy: Awaited<ReturnType<typeof startFrontProxy>>;
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let ui: ConsoleBrowser;
  let page: Page;
  let agentId: string;
  let sessionId: string;
  /** Cron jobs' Temporal Schedules outlive the test's database: removed at the end. */
  const cronIds: string[] = [];

  const call = (method: string, path: string, body?: unknown) => api.call(method, path, { key: api.adminKey, ...(body ? { body } : {}) });
  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const tab = (name: string) => page.getByRole('navigation', { name: 'Automations' }).getByRole('link', { name });
  const toast = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).first();

  beforeAll(async () => {
    model.reply = () => ({ body: chatAnswer('Nothing happened overnight.') });
    const modelUrl = await model.start();
    proxy = await startFrontProxy();
    api = await startTestApi({ PUBLIC_BASE_URL: proxy.origin, LLM_BASE_URL: modelUrl, LLM_MODEL: 'scripted-model' });
    proxy.target.url = api.url;
    worker = await startTestWorker(api, { dispatcher: false });
    agentId = (await call('POST', '/v1/combo/agents', { name: 'ops helper', instructions: 'Answer briefly.' })).json.data.agent_id;
    sessionId = (await call('POST', `/v1/combo/agents/${agentId}/sessions`, { name: 'weather questions' })).json.data.session_id;
    ui = await openConsoleBrowser(api.url);
    page = ui.page;
    await page.goto(`${api.url}/console/automations`);
    await page.getByLabel('API key').fill(api.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Automations').waitFor();
  }, 120_000);

  afterAll(async () => {
    for (const cronId of cronIds)
      await api?.services.temporal.schedule
        .getHandle(`cron-${cronId}`)
        .delete()
        .catch(() => undefined);
    await ui?.close();
    await worker?.stop();
    await api?.close();
    await model.stop();
    await new Promise((resolve) => proxy?.server.close(resolve));
  }, 60_000);

  afterEach(() => {
    // No page error and no Content-Security-Policy refusal, whatever the test did.
    expect(ui.problems).toEqual([]);
  });

  /** Runs the shown command as a person pasting it would, and answers curl's HTTP status and the API's reply. */
  async function runShown(command: string): Promise<{ status: number; reply: { code: number; data: Record<string, unknown> } }> {
    const { stdout } = await run('bash', ['-c', command], { timeout: 30_000 });
    const lines = stdout.trim().split('\n');
    const status = Number(/^HTTP (\d{3})$/.exec(lines.at(-1) ?? '')?.[1]);
    return { status, reply: JSON.parse(lines.slice(0, -1).join('\n')) as { code: number; data: Record<string, unknown> } };
  }

  it('creates an integration shown once with a signed curl command the API accepts, rotates its secret and deletes it', async () => {
    expect(new URL(page.url()).pathname).toBe('/console/automations/integrations');
    await expect(tab('Integrations').getAttribute('aria-current')).resolves.toBe('page');
    await page.getByText('No integrations yet').waitFor();
    await expectAccessible(page, 'the integrations tab, empty');
    await screenshot(page, 'automations-integrations-empty');

    await page.getByLabel('Channel').selectOption('git-b');
    await page.getByLabel('Name', { exact: true }).fill('GitHub acme');
    await page.getByRole('button', { name: 'Create integration' }).click();
    const panel = page.getByRole('region', { name: 'Signing secret of GitHub acme' });
    await panel.waitFor();
    const secret = await panel.getByTestId('secret-value').innerText();
    const url = await panel.getByTestId('inbound-url').innerText();
    const command = await panel.getByTestId('curl-example').innerText();
    expect(secret).toMatch(/^insec_/);
    expect(url).toMatch(new RegExp(`^${proxy.origin}/v1/webhook/git-b\\?integration_id=int_`));
    expect(command).toContain(secret);
    expect(command).toContain(url);
    expect(command).toContain('openssl dgst -sha256 -hmac');
    await panel.getByRole('button', { name: 'Copy the signed curl command' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(command);
    await expectAccessible(page, 'a new integration with its secret');
    await screenshot(page, 'automations-integration-created');

    // Pasted into a shell, the command signs the sample and the API accepts it.
    const sent = await runShown(command);
    expect(sent.status).toBe(200);
    expect(sent.reply).toMatchObject({ code: 0, data: { duplicate: false } });
    // Every run is a new event (its own event id).
    expect((await runShown(command)).reply).toMatchObject({ code: 0, data: { duplicate: false } });
    // A tampered signature is refused: the signature is what made it pass.
    const tampered = await runShown(command.replace('sha256=$SIG', 'sha256=0$SIG'));
    expect([tampered.status, tampered.reply.code]).toEqual([401, 10002]);

    // Shown once: dismissed, the secret is nowhere on the page any more.
    await panel.getByRole('button', { name: 'I have copied it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    const row = page.getByRole('row', { name: /GitHub acme/ });
    await row.getByText(`…${secret.slice(-4)}`).waitFor();

    await row.getByRole('button', { name: 'Rotate secret of GitHub acme' }).click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate the secret of "GitHub acme"?' });
    await rotateDialog.getByLabel('Grace period').selectOption('86400');
    await expectAccessible(page, 'the rotate confirmation');
    await screenshot(page, 'automations-integration-rotate-confirm');
    await rotateDialog.getByRole('button', { name: 'Rotate secret' }).click();
    await panel.waitFor();
    const rotated = await panel.getByTestId('secret-value').innerText();
    expect(rotated).toMatch(/^insec_/);
    expect(rotated).not.toBe(secret);
    await panel.getByText('the previous one keeps verifying until').waitFor();
    expect((await runShown(await panel.getByTestId('curl-example').innerText())).reply.code).toBe(0);
    // In its grace, the old secret still verifies.
    expect((await runShown(command)).reply.code).toBe(0);
    await screenshot(page, 'automations-integration-rotated');
    await panel.getByRole('button', { name: 'I have copied it' }).click();
    await row.getByText('previous one valid until').waitFor();

    await row.getByRole('button', { name: 'Delete GitHub acme' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete the integration "GitHub acme"?' });
    await expectAccessible(page, 'the delete confirmation');
    await deleteDialog.getByRole('button', { name: 'Delete integration' }).click();
    await toast('Integration "GitHub acme" deleted').waitFor();
    await page.getByText('No integrations yet').waitFor();
    // Deleted: its calls are refused.
    expect((await runShown(command)).reply.code).toBe(10002);
  }, 90_000);

  it('previews a trigger on samples that match, do not match, lack a path or are refused, then creates, switches and deletes it', async () => {
    await tab('Event triggers').click();
    await page.getByText('No event triggers yet').waitFor();
    await expectAccessible(page, 'the triggers tab, empty');
    await screenshot(page, 'automations-triggers-empty');

    await page.getByRole('link', { name: 'New trigger' }).click();
    await heading('New event trigger').waitFor();
    const definition = page.getByRole('form', { name: 'Trigger definition' });
    const previewForm = page.getByRole('form', { name: 'Preview the trigger' });
    await definition.getByLabel('Name', { exact: true }).fill('Review acme pull requests');
    await definition.getByLabel('Source (channel)').selectOption('git-b');
    await definition.getByLabel('Event', { exact: true }).fill('pull_request.opened');
    await definition.getByLabel('Project pattern (optional)').fill('^acme/');
    await definition.getByLabel('Agent', { exact: true }).selectOption(agentId);
    await expectAccessible(page, 'a new trigger');

    // The GitHub sample (acme/shop, pull_request opened): it matches, and the inputs are filled from it.
    const sample = previewForm.getByLabel('Sample payload (JSON)');
    expect(JSON.parse(await sample.inputValue())).toMatchObject({ repository: { full_name: 'acme/shop' } });
    await expect(previewForm.getByLabel('Headers (optional)').inputValue()).resolves.toBe('X-GitHub-Event: pull_request');
    await previewForm.getByRole('button', { name: 'Preview', exact: true }).click();
    const result = page.getByTestId('preview-result');
    await result.getByText('would start').waitFor();
    for (const condition of ['enabled', 'source', 'integration', 'event', 'project_regex'])
      await result.getByRole('row', { name: new RegExp(`^${condition} passed`) }).waitFor();
    await result.getByText('https://github.com/acme/shop/pull/42').first().waitFor();
    await result.getByText('Fix the checkout total').first().waitFor();
    await expectAccessible(page, 'a preview that matches');
    await screenshot(page, 'automations-trigger-preview-match');

    // Another project: the pattern fails, and says why.
    const other = JSON.parse(await sample.inputValue()) as { repository: { full_name: string } };
    other.repository.full_name = 'other/shop';
    await sample.fill(JSON.stringify(other, null, 2));
    await previewForm.getByRole('button', { name: 'Preview', exact: true }).click();
    await result.getByText('no match').waitFor();
    await result.getByRole('row', { name: /^project_regex failed/ }).waitFor();
    expect(await result.getByRole('row', { name: /^project_regex failed/ }).innerText()).toContain('other/shop');
    await result.getByRole('row', { name: /^event passed/ }).waitFor();
    await expectAccessible(page, 'a preview that does not match');
    await screenshot(page, 'automations-trigger-preview-no-match');

    // Not JSON: said on the field, nothing sent.
    await sample.fill('{ "action": ');
    await previewForm.getByRole('button', { name: 'Preview', exact: true }).click();
    await previewForm.getByText(/^Not valid JSON/).waitFor();
    await expect(sample.getAttribute('aria-invalid')).resolves.toBe('true');

    // An input naming a path the event lacks: it matches, but no task would start, naming the path.
    await previewForm.getByRole('button', { name: /^Use a GitHub/ }).click();
    await definition.getByRole('button', { name: 'Add input' }).click();
    await definition.getByLabel('Name of input 3').fill('labels');
    await definition.getByLabel('Template of input 3').fill('{{ event.payload.pull_request.labels.0.name }}');
    await previewForm.getByRole('button', { name: 'Preview', exact: true }).click();
    await result.getByText('no task', { exact: true }).waitFor();
    expect(await result.innerText()).toContain('event.payload.pull_request.labels.0.name');
    await screenshot(page, 'automations-trigger-preview-missing-path');
    await definition.getByRole('button', { name: 'Remove input 3 (labels)' }).click();

    // A pattern the API refuses: its message, and the field marked.
    await definition.getByLabel('Project pattern (optional)').fill('(acme');
    await previewForm.getByRole('button', { name: 'Preview', exact: true }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'The preview was refused' });
    await refused.getByText('body.trigger.match.project_regex', { exact: true }).waitFor();
    await expect(definition.getByLabel('Project pattern (optional)').getAttribute('aria-invalid')).resolves.toBe('true');
    await expectAccessible(page, 'a refused preview');
    await screenshot(page, 'automations-trigger-preview-refused');
    await definition.getByLabel('Project pattern (optional)').fill('^acme/');

    await definition.getByRole('button', { name: 'Create trigger' }).click();
    await heading('Review acme pull requests').waitFor();
    await toast('Trigger "Review acme pull requests" created').waitFor();
    const triggerId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(triggerId).toMatch(/^trg_/);
    expect((await call('GET', `/v1/event-trigger/${triggerId}`)).json.data).toMatchObject({
      enabled: true,
      trigger: { source: 'git-b', match: { event: 'pull_request.opened', project_regex: '^acme/' }, action: { agent_id: agentId } },
    });
    await expectAccessible(page, "a trigger's page");
    await screenshot(page, 'automations-trigger-page');

    await page.getByRole('link', { name: '← Event triggers' }).click();
    const row = page.getByRole('row', { name: /Review acme pull requests/ });
    await row.getByText('enabled', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Disable Review acme pull requests' }).click();
    await row.getByText('disabled', { exact: true }).waitFor();
    expect((await call('GET', `/v1/event-trigger/${triggerId}`)).json.data.enabled).toBe(false);
    await row.getByRole('button', { name: 'Enable Review acme pull requests' }).click();
    await row.getByText('enabled', { exact: true }).waitFor();
    await expectAccessible(page, 'the triggers list');
    await screenshot(page, 'automations-triggers');

    await row.getByRole('button', { name: 'Delete Review acme pull requests' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the trigger "Review acme pull requests"?' })
      .getByRole('button', { name: 'Delete trigger' })
      .click();
    await page.getByText('No event triggers yet').waitFor();
    expect((await call('GET', `/v1/event-trigger/${triggerId}`)).json.code).toBe(10004);
  }, 90_000);

  it('creates a cron job, pauses and resumes it, runs it now with its run linked, backfills it and deletes it', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Automations' }).click();
    await tab('Cron jobs').click();
    await page.getByText('No cron jobs yet').waitFor();
    await expectAccessible(page, 'the cron tab, empty');
    await screenshot(page, 'automations-cron-empty');

    await page.getByRole('link', { name: 'New cron job' }).click();
    await heading('New cron job').waitFor();
    const form = page.getByRole('form', { name: 'New cron job' });
    await form.getByLabel('Name').fill('Nightly digest');
    await form.getByLabel('Cron expression').fill('61 3 * * *');
    await form.getByLabel('Time zone').fill('Europe/Berlin');
    await form.getByLabel('Agent', { exact: true }).selectOption(agentId);
    await form.getByLabel('Question').fill('What happened overnight?');
    await form.getByRole('button', { name: 'Create cron job' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not create the cron job' }).getByText('body.cron', { exact: true }).waitFor();
    await expect(form.getByLabel('Cron expression').getAttribute('aria-invalid')).resolves.toBe('true');
    await expectAccessible(page, 'a refused cron job');
    await screenshot(page, 'automations-cron-refused');

    await form.getByLabel('Cron expression').fill('0 3 * * *');
    await form.getByRole('button', { name: 'Create cron job' }).click();
    await heading('Nightly digest').waitFor();
    const cronId = new URL(page.url()).pathname.split('/').at(-1)!;
    cronIds.push(cronId);
    const nextRuns = page.getByRole('list', { name: 'Next run times' });
    await expect(nextRuns.getByRole('listitem').count()).resolves.toBe(5);
    await page.getByText('active', { exact: true }).first().waitFor();

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByText('None while paused').waitFor();
    expect((await call('GET', `/v1/cron/${cronId}`)).json.data.paused).toBe(true);
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await nextRuns.waitFor();
    expect((await call('GET', `/v1/cron/${cronId}`)).json.data.paused).toBe(false);

    await page.getByRole('button', { name: 'Run now', exact: true }).click();
    await toast('Cron job "Nightly digest" started a run').waitFor();
    const runs = page.getByRole('table', { name: 'Recent runs' });
    await runs.getByText('completed').waitFor({ timeout: 60_000 });
    const link = runs.getByRole('link', { name: /^trc_/ });
    const traceId = await link.innerText();
    await expect(link.getAttribute('href')).resolves.toBe(`/console/sessions/runs/${traceId}`);
    expect((await call('GET', `/v1/combo/completions/${traceId}`)).json.data).toMatchObject({ kind: 'cron', status: 'completed' });
    await expectAccessible(page, "a cron job's page with a run");
    await screenshot(page, 'automations-cron-page');

    // The two whole UTC days before today: each holds one 03:00 in Berlin (01:00 or 02:00 UTC), whatever the time now.
    // The page's local time is UTC (the browser context's time zone).
    const backfill = page.getByRole('form', { name: 'Backfill' });
    const utcInput = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    const midnight = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    await backfill.getByLabel('From (local time, inclusive)').fill(utcInput(midnight - 48 * 3_600_000));
    await backfill.getByLabel('Until (local time, exclusive)').fill(utcInput(midnight));
    await backfill.getByRole('button', { name: 'Backfill' }).click();
    await page.getByText('2 due times, from').waitFor();
    await page.getByText(/^2 of 2, \d finished$/).waitFor({ timeout: 30_000 });
    await expectAccessible(page, 'a backfill');
    await screenshot(page, 'automations-cron-backfill');

    // Its settings change in place: the same schedule, a new expression and question.
    await page.getByRole('link', { name: 'Change settings' }).click();
    await heading('Change cron job').waitFor();
    const edit = page.getByRole('form', { name: 'Change the cron job' });
    await expect(edit.getByLabel('Cron expression').inputValue()).resolves.toBe('0 3 * * *');
    await edit.getByLabel('Cron expression').fill('30 4 * * 1-5');
    await edit.getByLabel('Time zone').fill('Mars/Olympus');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Could not change the cron job' })
      .getByText('body.timezone', { exact: true })
      .waitFor();
    await expectAccessible(page, 'a refused change of a cron job');
    await screenshot(page, 'automations-cron-edit-refused');
    await edit.getByLabel('Time zone').fill('Europe/Berlin');
    await edit.getByLabel('Question').fill('What happened overnight, in short?');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await toast('Cron job "Nightly digest" saved').waitFor();
    await heading('Nightly digest').waitFor();
    expect((await call('GET', `/v1/cron/${cronId}`)).json.data).toMatchObject({
      cron: '30 4 * * 1-5',
      question: 'What happened overnight, in short?',
      timezone: 'Europe/Berlin',
    });
    // The runs so far are kept: the schedule is the same one.
    await runs.getByRole('link', { name: traceId }).waitFor();

    await page.getByRole('link', { name: '← Cron jobs' }).click();
    const row = page.getByRole('row', { name: /Nightly digest/ });
    await row.getByText('30 4 * * 1-5').waitFor();
    await row.getByText('Europe/Berlin').waitFor();
    await expectAccessible(page, 'the cron jobs list');
    await screenshot(page, 'automations-cron');

    await row.getByRole('link', { name: 'Nightly digest' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Delete the cron job "Nightly digest"?' })
      .getByRole('button', { name: 'Delete cron job' })
      .click();
    await page.getByText('No cron jobs yet').waitFor();
    expect((await call('GET', `/v1/cron/${cronId}`)).json.code).toBe(10004);
  }, 120_000);

  it('refuses a bad manifest on its field, installs a skill, activates it on a session and deletes it', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Skills' }).click();
    await heading('Skills').waitFor();
    await page.getByText('No skills installed yet').waitFor();
    await expectAccessible(page, 'the skills page, empty');
    await screenshot(page, 'skills-empty');

    const manifest = page.getByLabel('Manifest (JSON)');
    await page.getByRole('button', { name: 'Insert an example' }).click();
    const example = JSON.parse(await manifest.inputValue()) as { version: string };
    await manifest.fill(JSON.stringify({ ...example, version: 'one' }, null, 2));
    await page.getByRole('button', { name: 'Install skill' }).click();
    const fieldError = page.getByTestId('manifest-field-error');
    await fieldError.waitFor();
    expect(await fieldError.innerText()).toContain('manifest.version');
    await expect(manifest.getAttribute('aria-invalid')).resolves.toBe('true');
    await expectAccessible(page, 'a refused manifest');
    await screenshot(page, 'skills-install-refused');

    await page.getByRole('button', { name: 'Insert an example' }).click();
    await page.getByRole('button', { name: 'Install skill' }).click();
    await heading('weather 1.0.0').waitFor();
    await page.getByRole('heading', { level: 3, name: 'weather__forecast' }).waitFor();
    const skillId = new URL(page.url()).pathname.split('/').at(-1)!;

    const activate = page.getByRole('form', { name: 'Activate on a session' });
    await activate.getByLabel('Agent', { exact: true }).selectOption(agentId);
    await activate.getByLabel('Session').selectOption(sessionId);
    await activate.getByRole('button', { name: 'Activate' }).click();
    const activated = page.getByRole('status').filter({ hasText: `Active on ${sessionId}` });
    await activated.waitFor();
    expect(await activated.innerText()).toContain(skillId);
    await expectAccessible(page, "a skill's page after activating it");
    await screenshot(page, 'skills-activated');

    await page.getByRole('link', { name: '← Skills' }).click();
    const row = page.getByRole('row', { name: /weather/ });
    await row.getByText('1.0.0').waitFor();
    await expectAccessible(page, 'the skills list');
    await screenshot(page, 'skills');

    await row.getByRole('button', { name: 'Delete weather' }).click();
    await page.getByRole('dialog', { name: 'Delete the skill "weather" 1.0.0?' }).getByRole('button', { name: 'Delete skill' }).click();
    await page.getByText('No skills installed yet').waitFor();
    expect((await call('GET', `/v1/skills/${skillId}`)).json.code).toBe(10004);
  }, 90_000);
});
