import type { Locator, Page, Route } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { type Consumer, eventually, startConsumer, verifyDelivery } from '../support/consumer';
import { startTestWorker } from '../support/worker';

/**
 * The console's Webhooks section in headless Chromium against the real stack (API, worker with its
 * dispatcher), on the test-only retry schedule (WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS, four waits of
 * 300 ms): a subscription to a receiver answering 500, whose signing secret is shown once; a test
 * event whose attempts grow on the delivery page until it is dead; its replay from the dead-letter
 * queue once the receiver answers 200; editing, rotating the secret, the delivery log's filters; a
 * replay by time range followed to done; deleting after confirming. Every state visited is checked
 * with axe-core and photographed (test/browser/screenshots/webhooks-*.png).
 */
const WAIT_MS = 300;

describe('the Webhooks section of the console', () => {
  let api: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let consumer: Consumer;
  let ui: ConsoleBrowser;
  let page: Page;
  /** What the tests share: the subscription and its secret, the dead test delivery. */
  const state = { subscriptionId: '', secret: '', deadId: '', eventId: '' };

  beforeAll(async () => {
    api = await startTestApi({ WEBHOOK_RETRY_DELAYS_MS_FOR_TESTS: `${WAIT_MS},${WAIT_MS},${WAIT_MS},${WAIT_MS}` });
    worker = await startTestWorker(api);
    consumer = await startConsumer(() => ({ status: 500 }));
    ui = await openConsoleBrowser(api.url);
    page = ui.page;
    await page.goto(`${api.url}/console/webhooks`);
    await page.getByLabel('API key').fill(api.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await worker?.stop();
    await consumer?.close();
    await api?.close();
  }, 60_000);

  afterEach(() => {
    // No page error and no Content-Security-Policy refusal, whatever the test did.
    expect(ui.problems).toEqual([]);
  });

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
  const subPage = async (name: string, title: string) => {
    await page.getByRole('navigation', { name: 'Webhooks pages' }).getByRole('link', { name }).click();
    await heading(title).waitFor();
  };
  const eventBox = (scope: Locator | Page, name: string) =>
    scope.getByRole('checkbox', { name: new RegExp(`^${name.replace('.', '\\.')} `) });

  it("creates a subscription, naming the API's field when it refuses one, and shows its secret once", async () => {
    // The deep link opened after signing in.
    await heading('Webhook subscriptions').waitFor();
    await page.getByText('No subscriptions yet').waitFor();
    await expectAccessible(page, 'the empty subscriptions page');
    await screenshot(page, 'webhooks-subscriptions-empty');

    const form = page.getByRole('form', { name: 'Create a subscription' });
    await form.getByLabel('URL').fill(consumer.url);
    await form.getByLabel('Description').fill('receiver that fails');
    // No event chosen: the API refuses it, naming body.events; the events are marked.
    await form.getByRole('button', { name: 'Create subscription' }).click();
    const alert = form.getByRole('alert');
    await alert.getByText('Could not create the subscription').waitFor();
    expect(await alert.innerText()).toMatch(/10001[\s\S]*body\.events/);
    expect(await eventBox(form, 'session.created').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'the subscription form with an error');
    await screenshot(page, 'webhooks-subscription-invalid');

    await eventBox(form, 'session.created').check();
    await form.getByRole('button', { name: 'Create subscription' }).click();
    const panel = page.getByRole('region', { name: 'Signing secret of the new subscription' });
    await panel.waitFor();
    state.secret = await panel.getByTestId('secret-value').innerText();
    expect(state.secret.length).toBeGreaterThanOrEqual(16);
    const row = page.getByRole('row', { name: new RegExp(consumer.url.replace(/[.:/]/g, '\\$&')) });
    await row.getByText('enabled').waitFor();
    await row.getByText('X-Combo-Signature', { exact: true }).waitFor();
    await row.getByText(`…${state.secret.slice(-4)}`).waitFor();
    await expectAccessible(page, 'the subscriptions page with a new secret');
    await screenshot(page, 'webhooks-subscription-created');

    // Shown once: dismissed, it is nowhere on the page any more.
    await panel.getByRole('button', { name: 'I have copied it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(state.secret);
    await row.getByRole('link', { name: consumer.url }).click();
    await heading('Subscription').waitFor();
    state.subscriptionId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(state.subscriptionId).toMatch(/^whs_/);
    await page.getByText('No deliveries yet').waitFor();
    await expectAccessible(page, 'a subscription');
    await screenshot(page, 'webhooks-subscription');
  }, 60_000);

  it('sends a test event and shows its attempts grow until the delivery is dead', async () => {
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await heading('Delivery').waitFor();
    state.deadId = new URL(page.url()).pathname.split('/').at(-1)!;
    expect(state.deadId).toMatch(/^dlv_/);

    // Read the page as it refreshes itself: pending with fewer than five attempts first, then dead with five.
    const status = page.locator('.wh-delivery-status');
    const attempts = page.getByRole('table', { name: /^Attempts of delivery/ }).locator('tbody tr');
    const seen: string[] = [];
    let photographed = false;
    await eventually(async () => {
      const text = await status.innerText().catch(() => '');
      const count = await attempts.count();
      seen.push(`${text.split(/\s/)[0]}:${count}`);
      if (!photographed && text.startsWith('pending') && count > 0) {
        photographed = true;
        // The photograph first: the delivery moves on while axe-core reads the page.
        await screenshot(page, 'webhooks-delivery-pending');
        await expectAccessible(page, 'a pending delivery');
      }
      return text.startsWith('dead') ? true : undefined;
    }, 30_000);
    expect(seen.some((s) => /^pending:[0-4]$/.test(s))).toBe(true);
    expect(await attempts.count()).toBe(5);
    for (let i = 0; i < 5; i++) {
      const cells = await attempts.nth(i).locator('td').allInnerTexts();
      expect(cells[0]).toBe(String(i + 1));
      expect(cells[2]).toBe('failed');
      expect(cells[3]).toBe('500');
      expect(cells[4]).toMatch(/^\d+ ms$/);
    }
    await page.getByText('All 5 attempts failed').waitFor();
    await expectAccessible(page, 'a dead delivery');
    await screenshot(page, 'webhooks-delivery-dead');

    // The receiver got five signed attempts of one webhook.test event, signed with the secret shown once.
    expect(consumer.received).toHaveLength(5);
    state.eventId = consumer.received[0]!.json.event_id as string;
    expect(consumer.received.every((r) => r.json.event === 'webhook.test' && r.json.event_id === state.eventId)).toBe(true);
    expect(verifyDelivery(state.secret, consumer.received[0]!.rawBody, consumer.received[0]!.headers)).toBe(true);
  }, 60_000);

  it('replays the dead letter from the queue after confirming, and shows it delivered', async () => {
    consumer.answerWith(() => ({ status: 200 }));
    await subPage('Dead-letter queue', 'Dead-letter queue');
    const row = page.getByRole('row', { name: new RegExp(state.deadId) });
    await row.getByText('webhook.test').waitFor();
    await expectAccessible(page, 'the dead-letter queue');
    await screenshot(page, 'webhooks-dead-letters');

    await row.getByRole('checkbox', { name: new RegExp(`^Select ${state.deadId}`) }).check();
    await page.getByText('1 selected').waitFor();
    await page.getByRole('button', { name: 'Replay selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay this dead letter?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the replay confirmation');
    await screenshot(page, 'webhooks-dead-letters-confirm');
    await dialog.getByRole('button', { name: 'Replay', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const results = page.getByRole('region', { name: 'Replay results' });
    await results.getByText('1 of 1 replayed').waitFor();
    const result = results.getByRole('row', { name: new RegExp(state.deadId) });
    await result.getByText('delivered', { exact: true }).waitFor({ timeout: 20_000 });
    await result.getByText(/1 attempt, last: 200 in \d+ ms/).waitFor();
    await expectAccessible(page, 'the replay results');
    await screenshot(page, 'webhooks-dead-letters-replayed');

    // The receiver got the same event again, now answered 200.
    await consumer.waitFor(6);
    expect(consumer.received[5]!.json.event_id).toBe(state.eventId);
    // Replayed, the letter leaves the default view (those not replayed yet) and shows under "Replayed" with its replay.
    const letters = page.getByRole('table', { name: 'Dead letters' });
    await page.getByText('Nothing to replay').waitFor();
    await page.getByRole('radio', { name: 'Replayed', exact: true }).check();
    await page.waitForURL(/show=replayed/);
    const replayedRow = letters.getByRole('row', { name: new RegExp(state.deadId) });
    const replayId = await result.getByRole('link', { name: /^dlv_/ }).nth(1).innerText();
    await replayedRow.getByRole('link', { name: replayId }).waitFor();
    await expectAccessible(page, 'the replayed dead letters');
    await screenshot(page, 'webhooks-dead-letters-replayed-view');

    // The replay's page links back to the dead letter.
    await result.getByRole('link', { name: /^dlv_/ }).nth(1).click();
    await heading('Delivery').waitFor();
    await page.getByText('Delivered after 1 attempt.').waitFor();
    await page.getByRole('link', { name: state.deadId }).waitFor();
  }, 60_000);

  it('shows the view a person picks in the dead-letter queue at once, while the queue is being read again', async () => {
    await subPage('Dead-letter queue', 'Dead-letter queue');
    await page.getByText('Nothing to replay').waitFor();
    // Every read of the queue is held until the pick was seen, so that one is in flight when the person clicks.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let readStarted = () => {};
    const reading = new Promise<void>((resolve) => (readStarted = resolve));
    const holdRead = async (route: Route) => {
      readStarted();
      await released;
      await route.continue();
    };
    await page.route((url) => url.pathname === '/v1/webhook/dead-letters', holdRead);
    try {
      await page.getByRole('radio', { name: 'All', exact: true }).click();
      await reading;
      // Read as the click's own event ends, before any later work of the page: what the person sees
      // answer the click. A radio set back here was shown unchecked until some later render (the
      // router's, which a refresh of the list delays), and Playwright's check() could find it so.
      const replayed = page.getByRole('radio', { name: 'Replayed', exact: true });
      const checkedOnClick = await replayed.evaluate((element) => {
        const radio = element as unknown as { click(): void; checked: boolean };
        radio.click();
        return radio.checked;
      });
      expect(checkedOnClick).toBe(true);
      await page.waitForURL(/show=replayed/);
    } finally {
      release();
      // The reads held go on; removing the handler waits for them.
      await page.unrouteAll({ behavior: 'wait' });
    }
    await page
      .getByRole('table', { name: 'Dead letters' })
      .getByRole('row', { name: new RegExp(state.deadId) })
      .waitFor();
    expect(await page.getByRole('radio', { name: 'Replayed', exact: true }).isChecked()).toBe(true);
  }, 60_000);

  it('filters the delivery log on the server by status and subscription', async () => {
    await subPage('Delivery log', 'Delivery log');
    const table = page.getByRole('table', { name: 'Deliveries' });
    await table.locator('tbody tr').nth(1).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(2);
    await expectAccessible(page, 'the delivery log');
    await screenshot(page, 'webhooks-delivery-log');

    const filters = page.getByRole('search', { name: 'Filter deliveries' });
    await filters.getByLabel('Status').selectOption('dead');
    await filters.getByLabel('Subscription').selectOption(state.subscriptionId);
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=dead/);
    await page.getByText('1–1 of 1').waitFor();
    await table.getByRole('row', { name: new RegExp(state.deadId) }).waitFor();
    await screenshot(page, 'webhooks-delivery-log-filtered');

    await filters.getByLabel('Status').selectOption('pending');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No delivery matches these filters').waitFor();
    await expectAccessible(page, 'the delivery log, nothing matching');
    await filters.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('1–2 of 2').waitFor();

    // By event name and creation time: both are test events; none was created in the future.
    await filters.getByLabel('Event', { exact: true }).selectOption('webhook.test');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/event=webhook.test/);
    await page.getByText('1–2 of 2').waitFor();
    await filters.getByLabel('Event', { exact: true }).selectOption('session.created');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No delivery matches these filters').waitFor();
    await filters.getByLabel('Event', { exact: true }).selectOption('');
    await filters.getByLabel('Created from').fill('2099-01-01T00:00');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/since=2099/);
    await page.getByText('No delivery matches these filters').waitFor();
    await filters.getByRole('button', { name: 'Clear' }).click();
    await page.getByText('1–2 of 2').waitFor();
  }, 60_000);

  it('edits the subscription and rotates its secret with a grace, the new one shown once', async () => {
    await subPage('Subscriptions', 'Webhook subscriptions');
    await page.getByRole('link', { name: consumer.url }).click();
    await heading('Subscription').waitFor();

    const edit = page.getByRole('form', { name: 'Edit the subscription' });
    await edit.getByLabel('Description').fill('receiver, now healthy');
    await eventBox(edit, 'run.failed').check();
    // The generated secret is of the Standard Webhooks form: the subscription may switch to it.
    await edit.getByLabel('Signing').selectOption({ label: 'X-Combo-Signature and Standard Webhooks' });
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(`Subscription ${state.subscriptionId} saved`).waitFor();
    const saved = await api.call('GET', `/v1/webhook/subscriptions/${state.subscriptionId}`, { key: api.adminKey });
    expect(saved.json.data).toMatchObject({
      description: 'receiver, now healthy',
      events: ['session.created', 'run.failed'],
      enabled: true,
      signing: 'standard_webhooks',
    });
    await page.getByRole('definition').getByText('X-Combo-Signature and Standard Webhooks').waitFor();

    const rotate = page.getByRole('form', { name: 'Rotate the signing secret' });
    await rotate.getByLabel('Grace').selectOption({ label: '1 hour' });
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the rotation confirmation');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const panel = page.getByRole('region', { name: 'New signing secret' });
    await panel.waitFor();
    const secret = await panel.getByTestId('secret-value').innerText();
    expect(secret).not.toBe(state.secret);
    await panel.getByText('The replaced secret keeps signing beside it until').waitFor();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByText(`…${secret.slice(-4)}`).waitFor();
    await expectAccessible(page, 'a subscription with its new secret');
    await screenshot(page, 'webhooks-secret-rotated');
    await panel.getByRole('button', { name: 'I have copied it' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
    state.secret = secret;
  }, 60_000);

  it('replays a time range and follows its progress until it is done', async () => {
    // An event the subscription asks for, in the range: a new session (the dispatcher delivers it too).
    const agent = (await api.call('POST', '/v1/combo/agents', { key: api.adminKey, body: { name: 'replayed' } })).json.data;
    const session = (await api.call('POST', `/v1/combo/agents/${agent.agent_id}/sessions`, { key: api.adminKey, body: {} })).json.data;
    const ofSession = () => consumer.received.filter((r) => r.json.data?.session_id === session.session_id);
    await eventually(async () => (ofSession().length === 1 ? true : undefined));

    await subPage('Replay by time range', 'Replay by time range');
    const form = page.getByRole('form', { name: 'Replay events by time range' });
    await eventBox(form, 'session.created').check();
    await form.getByLabel('Subscription').selectOption(state.subscriptionId);
    await expectAccessible(page, 'the replay form');
    await screenshot(page, 'webhooks-replay-form');
    await form.getByRole('button', { name: 'Start replay' }).click();

    await heading('Replay progress').waitFor();
    await page.getByRole('progressbar', { name: 'Replay' }).waitFor();
    await page.getByText(/Completed: 1 delivery started\./).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('progressbar', { name: 'Replay' }).getAttribute('value')).toBe('1');
    await page.getByText('done · 1 delivery started').waitFor();
    await expectAccessible(page, 'a finished replay');
    await screenshot(page, 'webhooks-replay-done');

    // The receiver got the session's event again, with its original id, signed with the new secret.
    const [first, again] = await eventually(async () => (ofSession().length === 2 ? ofSession() : undefined));
    expect(again!.json.event_id).toBe(first!.json.event_id);
    expect(verifyDelivery(state.secret, again!.rawBody, again!.headers)).toBe(true);
  }, 60_000);

  it('deletes a subscription after confirming', async () => {
    const other = await api.call('POST', '/v1/webhook/subscriptions', {
      key: api.adminKey,
      body: { url: `${consumer.url}/other`, events: ['run.failed'], description: 'to delete' },
    });
    await subPage('Subscriptions', 'Webhook subscriptions');
    await page.getByRole('link', { name: `${consumer.url}/other` }).click();
    await heading('Subscription').waitFor();
    await page.getByRole('button', { name: 'Delete subscription' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this subscription?' });
    await dialog.waitFor();
    await expectAccessible(page, 'the delete confirmation');
    await screenshot(page, 'webhooks-subscription-delete-confirm');
    await dialog.getByRole('button', { name: 'Delete subscription' }).click();
    await heading('Webhook subscriptions').waitFor();
    await page.getByText(`Subscription to ${consumer.url}/other deleted`).waitFor();
    await page.getByRole('link', { name: `${consumer.url}/other` }).waitFor({ state: 'detached' });
    const gone = await api.call('GET', `/v1/webhook/subscriptions/${other.json.data.subscription_id as string}`, { key: api.adminKey });
    expect(gone.status).toBe(404);
  }, 60_000);
});
