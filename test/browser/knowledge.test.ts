import type { CDPSession, Locator, Page } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { type ConsoleBrowser, expectAccessible, openConsoleBrowser, screenshot } from '../support/browser';
import { eventually } from '../support/consumer';
import { startEarlyInRateWindow } from '../support/rate-window';
import { startTestWorker } from '../support/worker';

/**
 * The console's Knowledge section in headless Chromium against the real stack (API, worker, the
 * local embedding model): a knowledge base created (the API's validation shown on its field) and
 * edited; two documents uploaded, one dropped and one picked, each with its upload progress (the
 * upload slowed by the browser's network throttling) and then its parse progress until `ready`; the
 * chunk viewer; the search playground with each hit's score parts; an unreadable file `failed` with
 * its reason; reparse and delete after confirming. Beside it, a second API process on the same
 * database with an upload ceiling of 2 per minute: three files dropped there wait for the rate
 * limit and all get uploaded (that case starts early and is checked at the end, so its wait for
 * the next minute overlaps the others).
 */
describe('the Knowledge section of the console', () => {
  let api: TestApi;
  /** Another API process on the same database, queue and indices, with RATE_LIMIT_UPLOADS_PER_MIN=2. */
  let limited: TestApi;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let ui: ConsoleBrowser;
  let page: Page;
  /** A second tab, signed in to the limited API as another user. */
  let page2: Page;
  let limitedKbId: string;

  beforeAll(async () => {
    api = await startTestApi();
    limited = await startTestApi({
      RATE_LIMIT_UPLOADS_PER_MIN: '2',
      MONGODB_DB: api.config.MONGODB_DB,
      ELASTICSEARCH_INDEX_PREFIX: api.config.ELASTICSEARCH_INDEX_PREFIX,
      TEMPORAL_TASK_QUEUE: api.config.TEMPORAL_TASK_QUEUE,
      BOOTSTRAP_API_KEY: api.adminKey,
    });
    worker = await startTestWorker(api, { dispatcher: false });
    ui = await openConsoleBrowser(api.url);
    page = ui.page;
    page2 = await ui.context.newPage();
    page2.on('pageerror', (error) => ui.problems.push(`page error (second tab): ${error.message}`));
    page2.on('console', (message) => {
      if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text()))
        ui.problems.push(`CSP (second tab): ${message.text()}`);
    });
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await worker?.stop();
    await limited?.close({ keepDatabase: true });
    await api?.close();
  }, 60_000);

  afterEach(() => {
    expect(ui.problems).toEqual([]);
  });

  const heading = (on: Page, name: string | RegExp) => on.getByRole('heading', { level: 1, name });
  const signIn = async (on: Page, key: string) => {
    await on.getByLabel('API key').fill(key);
    await on.getByRole('button', { name: 'Sign in' }).click();
  };
  const queueItem = (on: Page, name: string) =>
    on.getByRole('list', { name: 'Upload queue' }).getByRole('listitem').filter({ hasText: name });

  /** Drops files on the drop zone as a drag from the desktop does: dragenter, dragover, drop with a DataTransfer. */
  const drop = async (on: Page, files: Array<{ name: string; type: string; content: string }>) => {
    // Run in the page (the expression as text: this file is compiled without the DOM's types).
    const dataTransfer = await on.evaluateHandle(
      `(() => {
        const transfer = new DataTransfer();
        for (const file of ${JSON.stringify(files)}) transfer.items.add(new File([file.content], file.name, { type: file.type }));
        return transfer;
      })()`,
    );
    const zone: Locator = on.getByTestId('dropzone');
    for (const type of ['dragenter', 'dragover', 'drop']) await zone.dispatchEvent(type, { dataTransfer });
  };

  /** A manual of about 40 KB in sections, so that its upload (throttled) and its parse both take a moment. */
  const guide = (): string => {
    const sections: string[] = ['# Router guide\n'];
    for (let i = 1; i <= 32; i++) {
      sections.push(`## Chapter ${i}: ${['Setup', 'Wireless', 'Firmware', 'Security', 'Troubleshooting'][i % 5]}\n`);
      for (let p = 0; p < 5; p++)
        sections.push(
          `Paragraph ${p} of chapter ${i}. The router's lights show its state; the firmware page lists version ${i}.${p}. ` +
            `Channel ${(i * 7 + p) % 13} suits crowded flats, and the guest network keeps visitors apart from your devices. ` +
            `Write the administrator password down somewhere safe before changing settings number ${i * 10 + p}.\n`,
        );
    }
    return sections.join('\n');
  };

  it("creates a knowledge base, showing the API's validation on the named field, and edits it", async () => {
    await page.goto(`${api.url}/console/`);
    await signIn(page, api.adminKey);
    await heading(page, 'Overview').waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Knowledge' }).click();
    await heading(page, 'Knowledge').waitFor();
    await page.getByText('No knowledge bases yet').waitFor();
    await expectAccessible(page, 'the knowledge bases, none yet');
    await screenshot(page, 'knowledge-empty');

    await page.getByRole('link', { name: 'New knowledge base' }).click();
    await heading(page, 'New knowledge base').waitFor();
    // The choices come from GET /v1/kb/embedding-models and GET /v1/kb/parsers.
    const model = page.getByLabel('Embedding model');
    await model.locator('option', { hasText: 'local:all-minilm-l6-v2' }).waitFor({ state: 'attached' });
    await page.getByLabel('Parser').locator('option[value="laws"]').waitFor({ state: 'attached' });

    // No name: the API's 10001 names body.name, and the Name field is marked.
    await page.getByRole('button', { name: 'Create knowledge base' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Could not create the knowledge base').waitFor();
    expect(await alert.innerText()).toContain('10001');
    expect(await alert.innerText()).toContain('body.name');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'the knowledge base form with an error');
    await screenshot(page, 'knowledge-create-error');

    await page.getByLabel('Name', { exact: true }).fill('Router manuals');
    await page.getByLabel('Description').fill('How to set up and look after the routers');
    await page.getByLabel('Parser').selectOption('naive');
    await page.getByLabel('Chunk size (tokens)').fill('256');
    await page.getByLabel('Overlap (tokens)').fill('32');
    await screenshot(page, 'knowledge-create');
    await page.getByRole('button', { name: 'Create knowledge base' }).click();
    await heading(page, 'Router manuals').waitFor();
    await page.getByText('Knowledge base "Router manuals" created').waitFor();
    await page.getByText('256 tokens, 32 overlap').waitFor();
    await page.getByText('No documents yet').waitFor();

    await page.getByRole('link', { name: 'Edit' }).click();
    await heading(page, 'Edit Router manuals').waitFor();
    expect(await page.getByLabel('Embedding model').isDisabled()).toBe(true);
    await page.getByLabel('Description').fill('Setting up and looking after the routers');
    await expectAccessible(page, 'the knowledge base edit form');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading(page, 'Router manuals').waitFor();
    await page.getByText('Setting up and looking after the routers').waitFor();
    await expectAccessible(page, 'a new knowledge base');
    await screenshot(page, 'knowledge-base-new');
  }, 60_000);

  it('queues files over the upload rate limit: the third waits for the next window (second API process, 2 per minute)', async () => {
    const key = await api.call('POST', '/v1/api-keys', {
      key: api.adminKey,
      body: { name: 'uploader', role: 'member', owner_id: 'rate-limited-uploader' },
    });
    expect(key.status).toBe(200);
    const kb = await limited.call('POST', '/v1/kb', { key: key.json.data.api_key, body: { name: 'Rate-limited uploads' } });
    limitedKbId = kb.json.data.kb_id;

    await page2.goto(`${limited.url}/console/knowledge/${limitedKbId}`);
    await signIn(page2, key.json.data.api_key);
    await heading(page2, 'Rate-limited uploads').waitFor();
    // The window is the minute of the clock: not in its last seconds, so the two first uploads share it.
    await startEarlyInRateWindow();
    // Another tab of the same user spent one upload of this window already.
    const token = await limited.call('POST', '/v1/auth/console-token', { key: key.json.data.api_key, body: {} });
    const earlier = await limited.upload(
      '/v1/document',
      token.json.data.token,
      { kb_id: limitedKbId },
      {
        name: 'zero.md',
        bytes: Buffer.from('# The zero note\n\nUploaded from elsewhere.\n'),
      },
    );
    expect(earlier.headers.get('x-ratelimit-remaining')).toBe('1');
    await drop(
      page2,
      ['first', 'second', 'third'].map((n) => ({
        name: `${n}.md`,
        type: 'text/markdown',
        content: `# The ${n} note\n\nThe ${n} note says the router restarts at night.\n`,
      })),
    );
    // Two go at once: the first reply says the window is spent, the other is refused (429, Retry-After) and
    // goes back to the queue; the third waits too, and says so.
    await page2
      .getByRole('status')
      .filter({ hasText: /^Waiting for the rate limit/ })
      .waitFor({ timeout: 20_000 });
    const queue = page2.getByRole('list', { name: 'Upload queue' });
    const waiting = queue.getByText('waiting for the rate limit', { exact: true });
    await waiting.nth(1).waitFor();
    await queue
      .getByText(/^(parsing|ready)$/)
      .first()
      .waitFor();
    expect(await waiting.count()).toBe(2);
    await queueItem(page2, 'third.md').getByText('waiting for the rate limit').waitFor();
    expect(await page2.getByText(/upload starts in \d+ s/).count()).toBe(1);
    await expectAccessible(page2, 'the upload queue waiting for the rate limit');
    await screenshot(page2, 'knowledge-rate-limited');
  }, 60_000);

  it('uploads two documents, one dropped and one picked, with upload then parse progress, until ready', async () => {
    // The upload slowed down (about 12 KB/s) so that its progress shows.
    const cdp: CDPSession = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 12 * 1024 });

    await drop(page, [{ name: 'guide.md', type: 'text/markdown', content: guide() }]);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: 'Choose files…' }).click()]);
    await chooser.setFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Resetting the router\n\nTo reset the router, hold the reset button for ten seconds until the lights blink.\n'),
    });

    const uploadBar = page.getByRole('progressbar', { name: 'Upload of guide.md' });
    await uploadBar.waitFor();
    await queueItem(page, 'guide.md').getByText('uploading', { exact: true }).waitFor();
    // Part of it sent, not all: the bar moves with the client's onProgress.
    // Polled from here: waitForFunction evaluates its predicate with eval, which the console's CSP refuses.
    await eventually(async () =>
      (await uploadBar.evaluate((element) => {
        const bar = element as unknown as { value: number; max: number };
        return bar.value > 0 && bar.value < bar.max;
      }))
        ? true
        : undefined,
    );
    await screenshot(page, 'knowledge-uploading');
    await expectAccessible(page, 'an upload under way');

    // Upload done: the parse bar shows, unless the parse ended before the console's first look at it.
    const guideItem = queueItem(page, 'guide.md');
    await guideItem
      .getByRole('progressbar', { name: 'Parse of guide.md' })
      .or(guideItem.getByText('ready', { exact: true }))
      .waitFor({ timeout: 30_000 });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await screenshot(page, 'knowledge-parsing');

    for (const name of ['guide.md', 'notes.txt'])
      await queueItem(page, name).getByText('ready', { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByRole('status').filter({ hasText: '2 files: 2 ready' }).waitFor();
    const table = page.getByRole('table', { name: 'documents' });
    for (const name of ['guide.md', 'notes.txt']) {
      const row = table.getByRole('row', { name: new RegExp(name.replace('.', '\\.')) });
      await row.getByText('ready', { exact: true }).waitFor({ timeout: 15_000 });
      expect(Number(await row.getByRole('cell').nth(2).innerText())).toBeGreaterThan(0);
      await row.getByText('naive').waitFor();
    }
    await expectAccessible(page, 'documents ready');
    await screenshot(page, 'knowledge-documents');

    // Filtered by status on the server.
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No failed documents').waitFor();
    await page.getByLabel('Status').selectOption('ready');
    await table.getByRole('row', { name: /notes\.txt/ }).waitFor();
    await page.getByLabel('Status').selectOption('');
    await cdp.detach();
  }, 90_000);

  it("shows a document's chunks in order in the chunk viewer", async () => {
    await queueItem(page, 'guide.md').getByRole('link', { name: 'View chunks of guide.md' }).click();
    await heading(page, 'guide.md').waitFor();
    const chunks = page.getByRole('list', { name: 'Chunks' });
    await chunks.getByRole('heading', { name: 'Position 0' }).waitFor();
    await chunks.getByRole('heading', { name: 'Position 19' }).waitFor();
    expect(await chunks.getByRole('article').count()).toBe(20);
    await chunks.getByText('Router guide › Chapter 1: Wireless').first().waitFor();
    await chunks
      .getByText(/Paragraph 0 of chapter 1\./)
      .first()
      .waitFor();
    await page
      .getByRole('navigation', { name: 'Pages of chunks' })
      .getByText(/^Page 1 of [2-9]/)
      .waitFor();
    await expectAccessible(page, 'the chunk viewer');
    await screenshot(page, 'knowledge-chunks');

    await page.getByRole('button', { name: 'Next' }).click();
    await chunks.getByRole('heading', { name: 'Position 20' }).waitFor();
    await page.getByRole('link', { name: 'Its knowledge base' }).click();
    await heading(page, 'Router manuals').waitFor();
  }, 60_000);

  it("searches with the contract parameters and shows each hit's score parts", async () => {
    await page.getByRole('link', { name: 'Search it' }).click();
    await heading(page, 'Search playground').waitFor();
    expect(await page.getByRole('checkbox', { name: /Router manuals/ }).isChecked()).toBe(true);
    await page.getByLabel('Question').fill('How do I reset the router?');
    await page.getByLabel('Top k').fill('5');
    await page.getByLabel('Similarity threshold').fill('0.1');
    await page.getByLabel('Vector similarity weight').fill('0.6');
    expect(await page.getByLabel('Keyword weight').inputValue()).toBe('0.4');
    await page.getByLabel('Rerank top n').fill('5');
    await page.getByRole('button', { name: 'Search', exact: true }).click();

    const hits = page.getByRole('list', { name: 'Hits' });
    const first = hits.getByRole('article').first();
    await first.waitFor({ timeout: 30_000 });
    await first.getByRole('heading', { name: /^1\. notes\.txt/ }).waitFor();
    await first.locator('mark', { hasText: 'reset' }).first().waitFor();
    for (const label of ['Similarity', 'Vector similarity', 'Term similarity', 'Rerank score']) {
      const score = first.locator('.kn-score', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) });
      const value = Number(await score.locator('.kn-score-value').innerText());
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
    await page.getByText(/hits? shown of \d+ candidates above the threshold/).waitFor();
    await page.getByText('Similarity = (0.600 × vector + 0.400 × term) / 1.000.', { exact: false }).waitFor();
    await expectAccessible(page, 'the search playground with hits');
    await screenshot(page, 'knowledge-search');

    // No knowledge base chosen: the API's 10001 on kb_ids.
    await page.getByRole('checkbox', { name: /Router manuals/ }).uncheck();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('The search failed').waitFor();
    expect(await alert.innerText()).toContain('body.kb_ids');
    await page.getByRole('checkbox', { name: /Router manuals/ }).check();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await alert.waitFor({ state: 'detached' });

    // A hit opens the chunk viewer at its chunk.
    await hits
      .getByRole('article')
      .first()
      .getByRole('link', { name: /Open in the chunk viewer/ })
      .click();
    await heading(page, 'notes.txt').waitFor();
    await page.getByText('· the search hit').waitFor();
  }, 60_000);

  it('shows an unreadable upload failed with its reason; reparses and deletes documents after confirming', async () => {
    await page.getByRole('link', { name: 'Its knowledge base' }).click();
    await heading(page, 'Router manuals').waitFor();
    await drop(page, [
      { name: 'broken.pdf', type: 'application/pdf', content: '%PDF-1.7\n%\u00e2\u00e3\nthis is not a PDF body at all\n%%EOF' },
    ]);
    const item = queueItem(page, 'broken.pdf');
    await item.getByText('failed', { exact: true }).waitFor({ timeout: 30_000 });
    await item.getByText('corrupt', { exact: true }).waitFor();
    await item.getByText(/the file cannot be read/).waitFor();
    const row = page.getByRole('table', { name: 'documents' }).getByRole('row', { name: /broken\.pdf/ });
    await row.getByText('failed', { exact: true }).waitFor({ timeout: 15_000 });
    await row.getByText('corrupt', { exact: true }).waitFor();
    await expectAccessible(page, 'a failed upload');
    await screenshot(page, 'knowledge-upload-failed');

    // Reparse asks first (and offers another parser).
    await page.getByRole('button', { name: 'Reparse notes.txt' }).click();
    const reparse = page.getByRole('dialog', { name: 'Reparse "notes.txt"?' });
    await reparse.waitFor();
    await reparse.getByLabel('Parser').selectOption('one');
    await expectAccessible(page, 'the reparse confirmation');
    await screenshot(page, 'knowledge-reparse-confirm');
    await reparse.getByRole('button', { name: 'Reparse' }).click();
    await page.getByText('Reparsing "notes.txt"').waitFor();
    const notes = page.getByRole('table', { name: 'documents' }).getByRole('row', { name: /notes\.txt/ });
    await notes.getByText('one', { exact: true }).waitFor({ timeout: 15_000 });
    await notes.getByText('ready', { exact: true }).waitFor({ timeout: 30_000 });

    // Delete asks first.
    await page.getByRole('button', { name: 'Delete broken.pdf' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the document "broken.pdf"?' });
    await confirm.waitFor();
    await screenshot(page, 'knowledge-delete-document-confirm');
    await confirm.getByRole('button', { name: 'Delete document' }).click();
    await page.getByText('Document "broken.pdf" deleted').waitFor();
    await row.waitFor({ state: 'detached' });
  }, 60_000);

  it('lists the knowledge bases and deletes one after confirming', async () => {
    await api.call('POST', '/v1/kb', { key: api.adminKey, body: { name: 'Scratch' } });
    await page.getByRole('link', { name: 'Knowledge bases' }).first().click();
    await heading(page, 'Knowledge').waitFor();
    const table = page.getByRole('table', { name: 'knowledge bases' });
    await table.getByRole('row', { name: /Router manuals/ }).waitFor();
    await expectAccessible(page, 'the knowledge bases');
    await screenshot(page, 'knowledge-bases');
    await table.getByRole('button', { name: 'Delete Scratch' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the knowledge base "Scratch"?' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Delete knowledge base' }).click();
    await page.getByText('Knowledge base "Scratch" deleted').waitFor();
    await table.getByRole('row', { name: /Scratch/ }).waitFor({ state: 'detached' });
  }, 60_000);

  it('uploaded every file held back by the rate limit once the window ended', async () => {
    for (const name of ['first.md', 'second.md', 'third.md'])
      await queueItem(page2, name).getByText('ready', { exact: true }).waitFor({ timeout: 75_000 });
    await queueItem(page2, 'third.md').getByText('Waited for the upload rate limit.').waitFor();
    await page2.getByRole('status').filter({ hasText: '3 files: 3 ready' }).waitFor();
    const listed = await limited.call('GET', `/v1/kb/${limitedKbId}/documents`, { key: api.adminKey });
    expect(listed.json.data.items.map((d: { name: string }) => d.name).sort()).toEqual(['first.md', 'second.md', 'third.md', 'zero.md']);
    await expectAccessible(page2, 'the upload queue after the rate limit');
    await screenshot(page2, 'knowledge-rate-limited-done');
  }, 90_000);
});
