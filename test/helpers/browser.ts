import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { defaultUiDir } from '../../src/http/admin-ui.js';
import type { TestSite } from './test-site.js';

/*
 * Browser tests drive Debian's chromium through playwright-core, which downloads nothing. Where
 * no browser is installed (or the UI was not built) the suites skip with a notice; .ci/run
 * installs chromium and `npm ci` builds the UI, so CI always runs them.
 */

const CANDIDATES = [process.env.FW_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser binary, or undefined when none is installed. */
export function chromiumPath(): string | undefined {
  return CANDIDATES.find((p): p is string => typeof p === 'string' && p !== '' && existsSync(p));
}

/** Why browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (!chromiumPath()) return 'no chromium found (apt-get install chromium, or set FW_CHROMIUM)';
  if (!existsSync(join(defaultUiDir(), 'index.html'))) return 'the admin UI is not built (npm run build)';
  return undefined;
}

/** Starts one headless browser for a whole test file. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

/** Serves the test site's app on an ephemeral port; answers its base URL. */
export async function listen(t: TestSite): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** Folder for screenshots (gitignored): test-artifacts/ui. */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'ui');

/** Saves a full-page screenshot of `page` as `<name>.png` among the test artifacts. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** A fresh browser context (its own cookie jar: its own session) that records CSP violations and page errors. */
export async function newContext(browser: Browser, baseURL: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1360, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/.test(msg.text())) problems.push(`CSP: ${msg.text()}`);
  });
  return { context, page, problems };
}

/** Signs in through the login screen and waits for the home page. */
export async function login(page: Page, usr: string, pwd: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email or user name').fill(usr);
  await page.getByLabel('Password').fill(pwd);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/app$/);
  await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
}

const require = createRequire(import.meta.url);

/** Runs axe-core in the page (through the DevTools protocol, which the page's CSP does not govern). */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; help: string; nodes: number }[]> {
  const { source } = require('axe-core') as { source: string };
  await page.evaluate(`${source}\n;void 0`);
  // This function runs in the page; its globals are reached through globalThis, as node's typings lack the DOM.
  return page.evaluate(async () => {
    const g = globalThis as unknown as {
      document: unknown;
      axe: { run(ctx: unknown, o: object): Promise<{ violations: { id: string; impact: string; help: string; nodes: unknown[] }[] }> };
    };
    const result = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  });
}

/** Waits until the page's URL matches, whether it got there by a load or by the history API. */
export async function urlMatches(page: Page, pattern: RegExp): Promise<void> {
  // A function, not a string: the page's CSP forbids evaluating strings.
  await page.waitForFunction(
    (source) => new RegExp(source).test(decodeURIComponent((globalThis as unknown as { location: { href: string } }).location.href)),
    pattern.source,
  );
}
