import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, resourceUrl } from '../helpers/document-api.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Getting around the admin UI (docs/admin-ui.md "Navigation"): signed out, /app goes to the sign-in
 * page with no failing request; at 390 px a menu button opens the sidebar and nothing scrolls
 * sideways; one sidebar item is active at a time; Esc closes every menu and popover; the Go-to box
 * finds documents by name and title and offers "New <DocType>". Under axe (nothing at any impact)
 * at 1440×900 and 390×844, with screenshots.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI navigation browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const ITEM = 'UI Nav Item';

/** How far the page scrolls sideways (0 when it does not). */
function sideways(page: Page): Promise<number> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
}

describe(`admin UI: navigation (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let base: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const failed: string[] = [];
  let gadget: Record<string, unknown>;

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    browser = await launchBrowser();
    await createDocType(t, {
      name: ITEM,
      module: 'Desk',
      autoname: 'hash',
      title_field: 'item_name',
      fields: [{ fieldname: 'item_name', label: 'Item Name', fieldtype: 'Data', in_list_view: 1 }],
    });
    gadget = dataOf(await t.request({ method: 'POST', url: resourceUrl(ITEM), body: { item_name: 'Gadget deluxe' } }));
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('signed out, /app goes to the sign-in page with no failing request and no console error', async () => {
    const { context, page: guest } = await newContext(browser, base);
    const bad: string[] = [];
    guest.on('response', (r) => {
      if (r.status() >= 400) bad.push(`${r.status()} ${r.url()}`);
    });
    guest.on('console', (m) => {
      if (m.type() === 'error') bad.push(`console: ${m.text()}`);
    });
    try {
      await guest.goto('/app');
      await urlMatches(guest, /\/login\?redirect=\/app$/);
      await guest.getByLabel('Email or user name').waitFor();
      assert.deepEqual(bad, []);
    } finally {
      await context.close();
    }
  });

  test('at 390 px a menu button opens the sidebar, one item is active, nothing scrolls sideways', async () => {
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await login(page, 'Administrator', ADMIN_PASSWORD);
    await page.setViewportSize({ width: 390, height: 844 });
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.isVisible(), false);
    const menu = page.getByRole('button', { name: 'Menu', exact: true });
    await menu.click();
    await nav.waitFor();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'nav-drawer-phone');
    await nav.getByRole('link', { name: 'Webhook Log' }).click();
    await urlMatches(page, /\/app\/webhook-request-log/);
    await nav.waitFor({ state: 'hidden' });
    for (const path of ['/app', '/app/webhook-request-log?limit=20', `/app/ui-nav-item/${gadget.name}`, '/app/user?limit=20']) {
      await page.goto(path);
      await page.locator('main h1').first().waitFor();
      assert.ok((await sideways(page)) <= 0, `${path} scrolls sideways at 390 px`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/app/webhook-request-log?limit=20');
    await page.locator('[data-total]').waitFor();
    assert.deepEqual(await page.locator('.sidebar .navlink.active').allInnerTexts(), ['Webhook Log']);
    await page.goto('/app/webhook?limit=20');
    await page.locator('[data-total]').waitFor();
    assert.deepEqual(await page.locator('.sidebar .navlink.active').allInnerTexts(), ['Webhooks']);
    await page.goto('/app/user/Administrator');
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.deepEqual(await page.locator('.sidebar .navlink.active').allInnerTexts(), ['Users']);
  });

  test('Esc closes every menu and popover', async () => {
    await page.goto('/app/ui-nav-item?limit=20');
    await page.locator('[data-total]').waitFor();
    const account = page.getByRole('button', { name: /Account menu/ });
    await account.click();
    await page.getByRole('menu').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: /notification/i }).click();
    await page.getByRole('menu', { name: 'Notifications' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('menu', { name: 'Notifications' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('group', { name: 'Filters' }).waitFor();
    await page.locator('main h1').click();
    await page.keyboard.press('Escape');
    await page.getByRole('group', { name: 'Filters' }).waitFor({ state: 'detached' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Menu', exact: true }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('navigation', { name: 'Main' }).waitFor({ state: 'hidden' });
    await page.setViewportSize({ width: 1440, height: 900 });
    const jump = page.getByRole('combobox', { name: /Go to a DocType or document/ });
    await jump.fill('nav');
    await page.getByRole('listbox', { name: 'Go to' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('listbox', { name: 'Go to' }).waitFor({ state: 'hidden' });
    assert.deepEqual(problems, []);
  });

  test('the Go-to box finds documents by title and name and offers New <DocType>', async () => {
    await page.goto('/app/ui-nav-item?limit=20');
    await page.locator('[data-total]').waitFor();
    const jump = page.getByRole('combobox', { name: /Go to a DocType or document/ });
    await jump.fill('Gadget');
    const list = page.getByRole('listbox', { name: 'Go to' });
    await list.getByRole('option', { name: /Gadget deluxe/ }).waitFor();
    for (const size of [
      { width: 1440, height: 900, name: 'desktop' },
      { width: 390, height: 844, name: 'phone' },
    ]) {
      await page.setViewportSize(size);
      await jump.focus();
      await list.getByRole('option', { name: /Gadget deluxe/ }).waitFor();
      assert.deepEqual(await axeViolations(page), [], `go-to at ${size.name}`);
      assert.ok((await sideways(page)) <= 0);
      await screenshot(page, `nav-goto-${size.name}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await list.getByRole('option', { name: /Gadget deluxe/ }).click();
    await page.getByRole('heading', { name: 'Gadget deluxe' }).waitFor();

    await page.goto('/app/ui-nav-item?limit=20');
    await page.locator('[data-total]').waitFor();
    await jump.fill(String(gadget.name));
    await list.getByRole('option', { name: /Gadget deluxe/ }).waitFor();

    await jump.fill('UI Nav');
    await list.getByRole('option', { name: /New UI Nav Item/ }).click();
    await urlMatches(page, /\/app\/ui-nav-item\/new$/);
    await page.getByRole('heading', { name: 'New UI Nav Item' }).waitFor();
    assert.deepEqual(failed, []);
    assert.deepEqual(problems, []);
  });
});
