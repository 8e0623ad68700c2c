import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, storedCount } from '../helpers/document-api.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The list screen in a real browser (docs/admin-ui.md "Lists"): every row shows its title; Link
 * cells show the linked document's title and open it; filter values typed by field (a Select's
 * options, relative dates, yes/no, Link suggestions); the group-by sidebar's counts; page numbers
 * with a jump to the last page, where paging never counts again; the first click on a column sorts
 * ascending; thousands separators; select-all across pages for a bulk delete. Each screen under axe
 * (nothing at any impact) at 1440×900 and 390×844, with screenshots.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI list browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const TASK = 'UI Task';
const PROJECT = 'UI Project';
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const STATUSES = ['Open', 'Working', 'Closed'];

describe(`admin UI: lists (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const failed: string[] = [];
  const asked: string[] = [];

  /** axe at both sizes (nothing at any impact), no sideways scrolling, and a screenshot of each. */
  async function checkScreens(name: string, ready: () => Promise<void>) {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await ready();
      assert.deepEqual(await axeViolations(page), [], `${name} at ${size.name}`);
      const wide = await page.evaluate(() => {
        const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return d.scrollWidth - d.clientWidth;
      });
      assert.ok(wide <= 0, `${name} at ${size.name} scrolls sideways by ${wide}px`);
      await screenshot(page, `lists-${name}-${size.name}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  before(async () => {
    t = await startTestSite(dialect);
    const base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    page.on('request', (r) => asked.push(decodeURIComponent(r.url())));
    await createDocType(t, {
      name: PROJECT,
      module: 'Desk',
      autoname: 'hash',
      title_field: 'project_name',
      fields: [{ fieldname: 'project_name', label: 'Project Name', fieldtype: 'Data', reqd: 1 }],
    });
    await createDocType(t, {
      name: TASK,
      module: 'Desk',
      autoname: 'hash',
      title_field: 'subject',
      fields: [
        { fieldname: 'subject', label: 'Subject', fieldtype: 'Data', reqd: 1 },
        { fieldname: 'status', label: 'Status', fieldtype: 'Select', options: STATUSES.join('\n'), in_list_view: 1, in_standard_filter: 1 },
        { fieldname: 'project', label: 'Project', fieldtype: 'Link', options: PROJECT, in_list_view: 1 },
        { fieldname: 'hours', label: 'Hours', fieldtype: 'Int', in_list_view: 1 },
        { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
        { fieldname: 'urgent', label: 'Urgent', fieldtype: 'Check' },
      ],
    });
    const apollo = dataOf(await t.request({ method: 'POST', url: `/api/resource/${PROJECT}`, body: { project_name: 'Apollo' } }));
    const today = new Date().toISOString().slice(0, 10);
    const docs = Array.from({ length: 45 }, (_, i) => ({
      doctype: TASK,
      subject: `Task number ${i + 1}`,
      status: STATUSES[i % 3],
      project: i % 5 === 0 ? apollo.name : null,
      hours: i === 0 ? 12345 : i,
      due: i % 2 === 0 ? today : '2001-01-01',
      urgent: i % 4 === 0 ? 1 : 0,
    }));
    const res = await t.request({ method: 'POST', url: '/api/method/frappe.client.insert_many', body: { docs } });
    assert.equal(res.statusCode, 200, res.body);
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('rows show their title, Link cells the linked title and open it, numbers are grouped', async () => {
    await page.goto('/app/ui-task?order=hours+desc');
    await page.locator('[data-total]', { hasText: '1–20 of 45' }).waitFor();
    const first = page.locator('tbody tr').first();
    assert.match(await first.innerText(), /Task number 1\b/);
    assert.match(await first.innerText(), /12,345/);
    const link = page.locator('[data-link-cell]').first();
    assert.equal(await link.innerText(), 'Apollo');
    await checkScreens('titles', () => page.locator('[data-link-cell]').first().waitFor());
    await link.click();
    await page.getByRole('heading', { name: 'Apollo' }).waitFor();
    assert.deepEqual(failed, []);
    assert.deepEqual(problems, []);
  });

  test('the first click on a column sorts ascending, the second descending', async () => {
    await page.goto('/app/ui-task?limit=20');
    await page.locator('[data-total]', { hasText: 'of 45' }).waitFor();
    await page.getByRole('columnheader', { name: 'Hours' }).getByRole('button').click();
    await urlMatches(page, /order=hours(\+| )asc/);
    await page.locator('tbody tr').first().filter({ hasText: 'Task number 2' }).waitFor();
    await page.getByRole('columnheader', { name: /Hours/ }).getByRole('button').click();
    await urlMatches(page, /order=hours(\+| )desc/);
  });

  test('filter values are typed by field: Select options, relative dates, yes/no and Link suggestions', async () => {
    await page.goto('/app/ui-task?limit=20');
    await page.locator('[data-total]', { hasText: 'of 45' }).waitFor();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByLabel('Field of filter 1').selectOption('status');
    const value = page.getByLabel('Value of filter 1');
    assert.deepEqual(await value.locator('option:not([disabled])').allInnerTexts(), STATUSES);
    await value.selectOption('Closed');
    await page.getByRole('button', { name: '+ Add filter' }).click();
    await page.getByLabel('Field of filter 2').selectOption('due');
    await page.getByLabel('Condition of filter 2').selectOption('timespan');
    await page.getByLabel('Value of filter 2').selectOption('last 30 days');
    await page.getByRole('button', { name: '+ Add filter' }).click();
    await page.getByLabel('Field of filter 3').selectOption('urgent');
    assert.deepEqual(await page.getByLabel('Value of filter 3').locator('option').allInnerTexts(), ['Yes', 'No']);
    await page.getByRole('button', { name: '+ Add filter' }).click();
    await page.getByLabel('Field of filter 4').selectOption('project');
    await page.getByLabel('Value of filter 4').focus();
    await page.getByRole('option', { name: /Apollo/ }).waitFor();
    await checkScreens('typed-filters', () =>
      page
        .getByRole('option', { name: /Apollo/ })
        .first()
        .waitFor({ state: 'attached' }),
    );
    await page.getByRole('button', { name: 'Remove filter 4' }).click();
    await page.getByLabel('Value of filter 1').focus();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // Closed: i % 3 == 2; due today: i even; urgent: i % 4 == 0 → i ≡ 8 (mod 12), i < 45: 8, 20, 32, 44.
    await page.locator('[data-total]', { hasText: '1–4 of 4' }).waitFor();
    const chips = await page.getByRole('list', { name: 'Active filters' }).innerText();
    assert.match(chips, /Status equals Closed/);
    assert.match(chips, /Due within last 30 days/);
    assert.match(chips, /Urgent equals Yes/);
    assert.deepEqual(failed, []);
  });

  test('the group-by sidebar counts each value and filters by it; counts follow the filters', async () => {
    await page.goto('/app/ui-task?limit=20');
    await page.locator('[data-total]', { hasText: 'of 45' }).waitFor();
    const side = page.getByRole('complementary', { name: 'Group by' });
    assert.equal(await side.getByLabel('Group by field').inputValue(), 'status');
    await side.locator('[data-group]', { hasText: 'Closed' }).waitFor();
    assert.deepEqual((await side.locator('[data-group]').allInnerTexts()).map((s) => s.replace(/\s+/g, ' ')).sort(), ['Closed 15', 'Open 15', 'Working 15']);
    await side.getByLabel('Group by field').selectOption('project');
    await side.locator('[data-group]', { hasText: 'Apollo' }).waitFor();
    assert.match(await side.locator('[data-group]', { hasText: 'Apollo' }).innerText(), /Apollo\s+9/);
    await checkScreens('group-by', () => side.locator('[data-group]', { hasText: 'Apollo' }).waitFor());
    await side.locator('[data-group]', { hasText: 'Apollo' }).click();
    await page.locator('[data-total]', { hasText: '1–9 of 9' }).waitFor();
    await side.getByLabel('Group by field').selectOption('status');
    await side.locator('[data-group]', { hasText: /Open\s*3/ }).waitFor();
  });

  test('page numbers jump to the last page, and paging never counts again', async () => {
    await page.goto('/app/ui-task?limit=20');
    await page.locator('[data-total]', { hasText: '1–20 of 45' }).waitFor();
    const counts = () => asked.filter((u) => u.includes('get_count')).length;
    const before = counts();
    await page.getByRole('button', { name: 'Last page, 3' }).click();
    await page.locator('[data-total]', { hasText: '41–45 of 45' }).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 5);
    await page.getByRole('button', { name: 'Page 2' }).click();
    await page.locator('[data-total]', { hasText: '21–40 of 45' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Page 2' }).getAttribute('aria-current'), 'page');
    assert.equal(counts(), before, 'no get_count for another page');
    await checkScreens('pages', () => page.locator('[data-total]', { hasText: '21–40 of 45' }).waitFor());
  });

  test('select-all across pages says how many and deletes every matching document', async () => {
    await page.goto(`/app/ui-task?filters=${encodeURIComponent(JSON.stringify([['status', 'in', ['Working', 'Open']]]))}`);
    await page.locator('[data-total]', { hasText: '1–20 of 30' }).waitFor();
    await page.getByLabel('Select all rows').check();
    await page.locator('[data-select-all-matching]').click();
    await page.locator('[data-selected-count]', { hasText: '30 selected' }).waitFor();
    await checkScreens('select-all', () => page.locator('[data-selected-count]', { hasText: '30 selected' }).waitFor());
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByText('Delete 30 documents').waitFor();
    await page.locator('[data-confirm]').click();
    await page.locator('[data-total]', { hasText: '0 records' }).waitFor();
    assert.equal(await storedCount(t, TASK), 15);
    assert.deepEqual(failed, []);
    assert.deepEqual(problems, []);
  });
});
