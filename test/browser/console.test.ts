import type { Page, Request } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { startTestWorker } from '../support/worker';

/**
 * The operator console in headless Chromium against the real stack (API with its built console,
 * a worker): sign-in, the overview, API keys (created and shown once, copied, revoked after
 * confirming), sign-out and a session ended by a 401. Every page visited is checked with axe-core
 * and photographed into test/browser/screenshots.
 */
describe('the operator console in a browser', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let ui: ConsoleBrowser;
  let page: Page;

  beforeAll(async () => {
    api = await startTestApi();
    worker = await startTestWorker(api, { dispatcher: false });
    ui = await openConsoleBrowser(api.url);
    page = ui.page;
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await worker?.stop();
    await api?.close();
  }, 60_000);

  afterEach(() => {
    // No page error and no Content-Security-Policy refusal, whatever the test did.
    expect(ui.problems).toEqual([]);
  });

  const signIn = async (key: string) => {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const heading = (name: string) => page.getByRole('heading', { level: 1, name });

  it("shows the API's error for a bad key", async () => {
    await page.goto(`${api.url}/console/`);
    await heading('Sign in to the Combo console').waitFor();
    await page.getByText('reloading the page or opening a new tab asks you to sign in again').waitFor();
    await expectAccessible(page, 'the sign-in page');
    await screenshot(page, 'sign-in');

    await signIn('combo_AAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.innerText();
    expect(text).toContain('Sign-in failed');
    expect(text).toContain('invalid, revoked or expired API key');
    expect(text).toContain('10002');
    await expectAccessible(page, 'the sign-in page with an error');
    await screenshot(page, 'sign-in-error');
  }, 60_000);

  it('signs in with the admin key and shows the overview', async () => {
    await signIn(api.adminKey);
    await heading('Overview').waitFor();
    // Readiness of each backend, from GET /v1/ready (the worker polls the test's task queue).
    for (const backend of ['Temporal', 'MongoDB', 'Elasticsearch', 'Workers']) {
      const card = page.locator('.stat', { has: page.locator('dt', { hasText: new RegExp(`^${backend}$`) }) });
      await card.getByText('ready', { exact: true }).waitFor({ timeout: 30_000 });
    }
    for (const figure of [/^Runs, last hour$/, /^Failed runs, last hour$/, /^Dead deliveries$/, /^Tokens/]) {
      const card = page.locator('.stat', { has: page.locator('dt', { hasText: figure }) });
      await card.locator('.stat-value', { hasText: /^\d+$/ }).waitFor();
    }
    expect(await page.getByTestId('user-id').innerText()).toBeTruthy();
    // Nothing of the session is kept in the browser's storage.
    expect(await page.evaluate('JSON.stringify([Object.keys(localStorage), Object.keys(sessionStorage)])')).toBe('[[],[]]');
    await expectAccessible(page, 'the overview');
    await screenshot(page, 'overview');
  }, 90_000);

  it('creates a key for a colleague, shown once with copy, and revokes it after confirming', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click();
    await heading('API keys').waitFor();
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    await expectAccessible(page, 'the API keys page');
    await screenshot(page, 'api-keys');

    await page.getByLabel('Name').fill('browser-test key');
    await page.getByLabel('Role').selectOption('member');
    await page.getByLabel('Expires').selectOption('30');
    // An admin makes it someone else's: it manages only that user's keys.
    await page.getByLabel('For user').fill('colleague@example.com');
    await page.getByRole('button', { name: 'Create key' }).click();
    const panel = page.getByRole('region', { name: 'New API key' });
    await panel.waitFor();
    await panel.getByText('owned by colleague@example.com', { exact: false }).waitFor();
    const secret = await page.getByTestId('secret-value').innerText();
    expect(secret).toMatch(/^combo_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/);
    await panel.getByRole('button', { name: 'Copy the new API key' }).click();
    await page.getByText('Copied to the clipboard').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await expectAccessible(page, 'the API keys page with a new key');
    await screenshot(page, 'api-key-created');

    // Shown once: dismissed, it is nowhere on the page any more.
    await panel.getByRole('button', { name: 'I have copied it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);

    const row = page.getByRole('row', { name: /browser-test key/ });
    await row.getByText('active').waitFor();
    await row.getByText('colleague@example.com').waitFor();
    const theirs = await api.call('GET', '/v1/api-keys', { key: secret });
    expect(theirs.json.data.items.map((k: { owner_id: string }) => k.owner_id)).toEqual(['colleague@example.com']);
    await row.getByRole('button', { name: 'Revoke browser-test key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key "browser-test key"?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the revoke confirmation');
    await screenshot(page, 'api-key-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Key "browser-test key" revoked').waitFor();
    await row.getByText('revoked').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await screenshot(page, 'api-key-revoked');

    // The API agrees: the key no longer works.
    const refused = await api.call('GET', '/v1/api-keys', { key: secret });
    expect(refused.status).toBe(401);
  }, 90_000);

  it('shows "page not found" at an address of no page', async () => {
    // Moved to within the app (a reload would ask to sign in again): the router follows the history.
    await page.evaluate("history.pushState(null, '', '/console/no-such-page'); dispatchEvent(new PopStateEvent('popstate'))");
    await heading('Page not found').waitFor();
    await page.getByText('There is no console page at this address').waitFor();
    await expectAccessible(page, 'the page not found');
    await screenshot(page, 'not-found');
  }, 60_000);

  it('asks to sign in again after a reload, and opens the deep link after it', async () => {
    await page.goto(`${api.url}/console/settings/api-keys`);
    await heading('Sign in to the Combo console').waitFor();
    await signIn(api.adminKey);
    await heading('API keys').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/settings/api-keys');
  }, 60_000);

  it('signs out and forgets the session', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the Combo console').waitFor();
    await page.getByText('You signed out.').waitFor();
    await screenshot(page, 'signed-out');
  }, 60_000);

  it('returns to sign-in with the message when a call answers 401', async () => {
    const created = await api.call('POST', '/v1/api-keys', { key: api.adminKey, body: { name: 'soon revoked', role: 'member' } });
    await page.goto(`${api.url}/console/`);
    await signIn(created.json.data.api_key as string);
    await heading('Overview').waitFor();
    await api.call('DELETE', `/v1/api-keys/${created.json.data.key_id as string}`, { key: api.adminKey });
    // The next call of the console (another page's list, or a background refresh first) is refused: its session ends.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'API keys' })
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    await heading('Sign in to the Combo console').waitFor({ timeout: 30_000 });
    await page.getByText(/Signed out: .+/).waitFor();
    await expectAccessible(page, 'the sign-in page after a 401');
    await screenshot(page, 'signed-out-401');
  }, 60_000);
});

describe('the console session', () => {
  let api: TestApi;
  let ui: ConsoleBrowser;

  beforeAll(async () => {
    // The shortest console-token life there is: renewed 30 s before it ends.
    api = await startTestApi({ CONSOLE_TOKEN_TTL_S: '60' });
    ui = await openConsoleBrowser(api.url);
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await api?.close();
  }, 60_000);

  const isExchange = (request: Request) => request.method() === 'POST' && new URL(request.url()).pathname === '/v1/auth/console-token';

  it('renews its token before it expires, with the token, and calls on with the new one', async () => {
    const { page } = ui;
    // The page's clock runs on, and is moved ahead to the renewal (the service's clock is not: the tokens stay valid).
    await page.clock.install();
    await page.goto(`${api.url}/console/settings/api-keys`);
    await page.getByLabel('API key').fill(api.adminKey);
    const signedIn = page.waitForResponse((response) => isExchange(response.request()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    const first = await signedIn;
    expect(first.request().headers().authorization).toBe(`Bearer ${api.adminKey}`);
    const firstToken = ((await first.json()) as { data: { token: string; expires_in: number } }).data;
    expect(firstToken.expires_in).toBeLessThanOrEqual(60);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    const renewed = page.waitForRequest(isExchange);
    await page.clock.runFor(31_000);
    const renewal = await renewed;
    // The renewal sends the console token, never the API key, which was not kept.
    expect(renewal.headers().authorization).toBe(`Bearer ${firstToken.token}`);
    const reply = await renewal.response();
    expect(reply?.status()).toBe(200);
    const secondToken = ((await reply!.json()) as { data: { token: string } }).data.token;
    expect(secondToken).not.toBe(firstToken.token);

    // The next calls (the overview's, loaded for the first time) carry the renewed token.
    const nextCall = page.waitForRequest((request) => new URL(request.url()).pathname === '/v1/combo/completions');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const call = await nextCall;
    expect(call.headers().authorization).toBe(`Bearer ${secondToken}`);
    expect((await call.response())?.status()).toBe(200);
    expect(ui.problems).toEqual([]);
  }, 120_000);
});
