import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { createUser } from '../helpers/permission-users.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The collaboration surface in a real browser (docs/admin-ui.md "Screens"): the form's panel for
 * assignees, tags, follow and like; list settings kept per user and restored on return; the report
 * view with a group-by and its total. Each screen is checked with axe at a desktop and a phone size,
 * and a form of a DocType without a workflow must send no get_transitions (no failing request). The
 * site runs on the first engine of the matrix; the methods are tested on both engines.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI collaboration browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const CLAIM = 'UI Claim';
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

/** Asks `probe` until it answers true: the page saves in the background, the test waits for what it asserts. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`never happened: ${what}`);
}

describe(`admin UI: collaboration, list settings and reports (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const failed: string[] = [];
  const transitionsAsked: string[] = [];
  let claim: Record<string, unknown>;

  /** axe at both sizes (nothing at minor or above) and a screenshot of each. */
  async function checkScreens(name: string, ready: () => Promise<void>) {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await ready();
      assert.deepEqual(await axeViolations(page), [], `${name} at ${size.name}`);
      await screenshot(page, `collab-${name}-${size.name}`);
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
    page.on('request', (r) => {
      if (r.url().includes('get_transitions')) transitionsAsked.push(r.url());
    });
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: CLAIM,
          module: 'People',
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data', in_list_view: 1 },
            { fieldname: 'category', label: 'Category', fieldtype: 'Data', in_list_view: 1 },
            { fieldname: 'amount', label: 'Amount', fieldtype: 'Float', in_list_view: 1 },
          ],
          permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, report: 1, export: 1 }],
        },
      }),
    );
    for (const [title, category, amount] of [
      ['Train', 'Travel', 120],
      ['Hotel', 'Travel', 300],
      ['Lunch', 'Food', 25.5],
      ['Taxi', 'Travel', 40],
      ['Misc', '', 10],
    ] as const) {
      const doc = dataOf(await t.request({ method: 'POST', url: `/api/resource/${CLAIM}`, body: { title, category, amount } }));
      if (title === 'Hotel') claim = doc;
    }
    await createUser(t, 'jane@claims.test', { roles: ['System Manager'] });
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/Report',
        body: {
          report_name: 'Claims by Category',
          ref_doctype: CLAIM,
          report_type: 'Report Builder',
          json: JSON.stringify({
            fields: [
              ['category', CLAIM],
              ['amount', CLAIM],
            ],
            filters: [],
            group_by: { group_by: `\`tab${CLAIM}\`.\`category\``, aggregate_function: 'sum', aggregate_on: 'amount' },
          }),
        },
      }),
    );
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the form panel assigns, tags, follows and likes, by mouse and keyboard, and the server keeps each', async () => {
    await page.goto(`/app/ui-claim/${encodeURIComponent(String(claim.name))}`);
    const panel = page.getByRole('complementary', { name: 'Assignments, tags, follow and like' });
    await panel.getByText('Nobody').waitFor();

    await panel.getByLabel('Assign to user').fill('jane@claims.test');
    await panel.getByRole('button', { name: 'Assign', exact: true }).click();
    await panel.getByRole('button', { name: 'Remove assignment of jane@claims.test' }).waitFor();

    const tag = panel.getByLabel('New tag');
    await tag.fill('urgent');
    await tag.press('Enter');
    await panel.locator('[data-tag]', { hasText: 'urgent' }).waitFor();

    const follow = panel.getByRole('button', { name: 'Follow' });
    await follow.focus();
    await page.keyboard.press('Space');
    await panel.getByRole('button', { name: 'Following', pressed: true }).waitFor();
    await panel.getByRole('button', { name: 'Like' }).click();
    await panel.getByRole('button', { name: /^Liked/, pressed: true }).waitFor();

    const info = (
      await t.request({ method: 'GET', url: `/api/method/frappe.desk.form.load.getdoc?doctype=${encodeURIComponent(CLAIM)}&name=${claim.name}` })
    ).json().docinfo;
    assert.deepEqual(
      info.assignments.map((a: { owner: string }) => a.owner),
      ['jane@claims.test'],
    );
    assert.equal(info.tags, 'urgent');
    assert.equal(info.is_document_followed, true);
    const [liked] = dataOf(
      await t.request({ method: 'GET', url: `/api/resource/${CLAIM}?fields=["name","_liked_by"]&filters=[["name","=","${claim.name}"]]` }),
    ) as unknown as { _liked_by: string }[];
    assert.deepEqual(JSON.parse(liked._liked_by), ['Administrator']);

    await checkScreens('form-panel', () => panel.locator('[data-tag]', { hasText: 'urgent' }).waitFor());

    await panel.getByRole('button', { name: 'Remove tag urgent' }).click();
    await panel.locator('[data-tag]').waitFor({ state: 'detached' });
    await panel.getByRole('button', { name: 'Remove assignment of jane@claims.test' }).click();
    await panel.getByText('Nobody').waitFor();
    const after = (
      await t.request({ method: 'GET', url: `/api/method/frappe.desk.form.load.getdoc?doctype=${encodeURIComponent(CLAIM)}&name=${claim.name}` })
    ).json().docinfo;
    assert.deepEqual([after.assignments, after.tags], [[], '']);

    assert.deepEqual(transitionsAsked, [], 'a DocType without a workflow is not asked for transitions');
    assert.deepEqual(failed, [], 'no request failed');
    assert.deepEqual(problems, []);
  });

  test("the list keeps the user's filters, sort, page length and columns, and restores them on return", async () => {
    const filters = JSON.stringify([['category', '=', 'Travel']]);
    await page.goto(`/app/ui-claim?filters=${encodeURIComponent(filters)}`);
    await page.locator('[data-total]', { hasText: '1–3 of 3' }).waitFor();
    await page.getByLabel('Rows per page').selectOption('100');
    await page.getByLabel('Sort by').selectOption('amount');
    await urlMatches(page, /order=amount(\+| )desc/);
    await page.getByRole('button', { name: 'Columns' }).click();
    await page
      .getByRole('dialog')
      .getByRole('checkbox', { name: /Created by/ })
      .check();
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    const stored = async () =>
      JSON.parse((await t.request({ method: 'GET', url: `/api/method/fw.model.utils.user_settings.get?doctype=${encodeURIComponent(CLAIM)}` })).json().message)
        .List ?? {};
    await until(
      async () => (await stored()).page_length === 100 && (await stored()).order_by === 'amount desc' && ((await stored()).fields ?? []).includes('owner'),
      'the list settings are saved',
    );
    assert.deepEqual((await stored()).filters, [['category', '=', 'Travel']]);

    await page.getByRole('link', { name: 'Home' }).first().click();
    await urlMatches(page, /\/app$/);
    await page.goto('/app/ui-claim');
    await urlMatches(page, /limit=100/);
    await page.locator('[data-total]', { hasText: '1–3 of 3' }).waitFor();
    assert.equal(await page.getByLabel('Rows per page').inputValue(), '100');
    assert.equal(await page.getByLabel('Sort by').inputValue(), 'amount');
    await page
      .getByRole('list', { name: 'Active filters' })
      .getByText(/Category equals Travel/)
      .waitFor();
    await page.getByRole('columnheader', { name: 'Created by' }).waitFor();
    const firstRow = page.locator('tbody tr').first();
    assert.match(await firstRow.innerText(), /Hotel/, 'sorted by amount, highest first');

    // A link that names its own query wins over the saved settings.
    await page.goto('/app/ui-claim?limit=20');
    await page.locator('[data-total]', { hasText: '1–5 of 5' }).waitFor();
    await checkScreens('list-settings', () => page.locator('[data-total]').waitFor());
    assert.deepEqual(failed, []);
    assert.deepEqual(problems, []);
  });

  test('a Report Builder report opens from its form and shows its groups with a total', async () => {
    await page.goto(`/app/report/${encodeURIComponent('Claims by Category')}`);
    await page.getByRole('link', { name: 'Show report' }).click();
    await urlMatches(page, /\/app\/query-report\/Claims by Category$/);
    const table = page.locator('[data-report-table]');
    await table.getByRole('columnheader', { name: 'Sum of Amount' }).waitFor();
    const body = await table.locator('tbody').innerText();
    assert.match(body, /Food\s+25\.5/);
    assert.match(body, /Travel\s+460/);
    assert.match(body, /Not Set\s+10/);
    const total = await table.locator('[data-report-total]').innerText();
    assert.match(total, /Total\s+495\.5/);
    assert.equal(await page.locator('[data-report-summary]').innerText(), '3 groups');
    await checkScreens('report', () => table.locator('[data-report-total]').waitFor());

    await page.goto(`/app/query-report/${encodeURIComponent('No Such Report')}`);
    await page.getByRole('alert').waitFor();
    assert.deepEqual(problems, []);
  });

  test('the report view draws the group-by as bars, narrows it with filters and exports what it shows', async () => {
    await page.goto(`/app/query-report/${encodeURIComponent('Claims by Category')}`);
    const chart = page.getByRole('figure');
    await chart.getByText('Claims by Category: Sum of Amount').waitFor();
    assert.deepEqual((await chart.locator('li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).sort(), ['Food 25.5', 'Not Set 10', 'Travel 460']);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByLabel('Field of filter 1').selectOption('amount');
    await page.getByLabel('Condition of filter 1').selectOption('>');
    await page.getByLabel('Value of filter 1').fill('30');
    await checkScreens('report-filters', () => page.getByRole('group', { name: 'Filters' }).waitFor());
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('list', { name: 'Active filters' }).getByText('Amount > 30').waitFor();
    const table = page.locator('[data-report-table]');
    await page.locator('[data-report-summary]').filter({ hasText: '1 group' }).waitFor();
    assert.match(await table.locator('tbody').innerText(), /Travel\s+460/);
    assert.deepEqual(
      (await chart.locator('li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
      ['Travel 460'],
    );
    await checkScreens('report-filtered', () => table.locator('[data-report-total]').waitFor());

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    assert.equal(download.suggestedFilename(), 'Claims by Category.csv');
    const path = await download.path();
    const text = (await readFile(path)).toString('utf8').replace(/^\uFEFF/, '');
    assert.deepEqual(text.trim().split(/\r?\n/), ['Sr,Category,Sum of Amount', '1,Travel,460']);
    await page.getByRole('button', { name: 'Remove filter amount > 30' }).click();
    await page.locator('[data-report-summary]').filter({ hasText: '3 groups' }).waitFor();
    assert.deepEqual(problems, []);
  });
});
