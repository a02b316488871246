import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (stack/install.sh installs it): Playwright drives it by path, nothing is downloaded. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of every page a browser test visits (git-ignored). */
const SCREENSHOTS_DIR = join(__dirname, '..', 'browser', 'screenshots');
/** A console built elsewhere (`vite build --outDir <dir>`) when CONSOLE_TEST_BUILD_DIR names it; startTestApi serves the same. */
const BUILT_CONSOLE = join(process.env.CONSOLE_TEST_BUILD_DIR ?? join(__dirname, '..', '..', 'dist', 'console'), 'index.html');

export interface ConsoleBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Page errors and Content-Security-Policy refusals seen so far (a test expects none). */
  problems: string[];
  close(): Promise<void>;
}

/** Headless Chromium on the API's origin, with the clipboard allowed (copy buttons). */
export async function openConsoleBrowser(origin: string): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run "bash stack/install.sh chromium" (npm test does)`);
  if (!existsSync(BUILT_CONSOLE)) throw new Error(`${BUILT_CONSOLE} is missing: run "npm run build" first (npm test does)`);
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  // --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB', timezoneId: 'UTC' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return { browser, context, page, problems, close: () => browser.close() };
}

/** axe-core on the page as it is now: no violation of serious or critical impact. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const severe = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = severe.map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => n.target.join(' ')).join('\n  ')}`);
  if (severe.length > 0) throw new Error(`accessibility violations on ${what}:\n${report.join('\n')}`);
}

/** A full-page screenshot, `<name>.png` under test/browser/screenshots. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(SCREENSHOTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
