import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { Browser, Download, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, insertDoc, resourceUrl } from '../helpers/document-api.js';
import { actAs, createRole, createUser, query, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Export from a list and the top bar's search across DocTypes, in a real browser at a desktop and a
 * phone size (docs/admin-ui.md "Screens"). The methods under them are tested on both engines by
 * test/data/export-query.test.ts and test/search/global-search.test.ts.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];

const CARD = 'Ledger Card';
const SIZES = [
  { label: 'desktop', width: 1440, height: 900 },
  { label: 'phone', width: 390, height: 844 },
] as const;

/** Every axe finding, whatever its impact (minor and above all count). */
async function assertAccessible(page: Page): Promise<void> {
  assert.deepEqual(await axeViolations(page), []);
}

async function downloadFrom(page: Page, click: () => Promise<void>): Promise<{ download: Download; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const path = await download.path();
  return { download, bytes: await readFile(path) };
}

describe(`admin UI: export and global search (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let owner: ActingUser;

  const searchAs = async (user: ActingUser | undefined, text: string) => {
    const req = { method: 'GET' as const, url: `/api/method/frappe.utils.global_search.search${query({ text })}` };
    const res = user ? await actAs(t, user, req) : await t.request(req);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().message as { name: string; title: string }[];
  };
  /** The index is written just after the commit: waits until the API finds what the browser will. */
  const indexed = async (user: ActingUser | undefined, text: string, count: number) => {
    const deadline = Date.now() + 10_000;
    while ((await searchAs(user, text)).length !== count) {
      if (Date.now() > deadline) assert.fail(`search for ${text} never found ${count}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  before(async () => {
    t = await startTestSite(dialect);
    await createRole(t, 'Card Owner');
    await createRole(t, 'Card Viewer');
    await createDocType(t, {
      name: CARD,
      autoname: 'field:code',
      title_field: 'title',
      fields: [
        { fieldname: 'code', label: 'Code', fieldtype: 'Data', reqd: 1 },
        { fieldname: 'title', label: 'Title', fieldtype: 'Data', in_list_view: 1, in_global_search: 1 },
        { fieldname: 'amount', label: 'Amount', fieldtype: 'Currency', in_list_view: 1 },
        { fieldname: 'body', label: 'Body', fieldtype: 'Small Text', in_global_search: 1 },
      ],
      permissions: [
        { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, export: 1 },
        { role: 'Card Owner', read: 1, write: 1, create: 1, if_owner: 1, export: 1 },
        { role: 'Card Viewer', read: 1, export: 0 },
      ],
    });
    await insertDoc(t, CARD, { code: 'LC-001', title: 'Zoë’s crème ledger', amount: 12.5, body: 'Quince jam for the market' });
    await insertDoc(t, CARD, { code: 'LC-002', title: '=SUM(A1:A2) looks like a formula', amount: 40, body: 'plain' });
    await insertDoc(t, CARD, { code: 'LC-003', title: 'Small change', amount: 2, body: 'plain' });
    await insertDoc(t, CARD, { code: 'LC-HIDDEN', title: 'Quince secret ledger', amount: 99, body: 'Quince of the board' });
    owner = await createUser(t, 'card-owner@example.com', { roles: ['Card Owner'] });
    await createUser(t, 'card-viewer@example.com', { roles: ['Card Viewer'] });
    const own = await actAs(t, owner, {
      method: 'POST',
      url: resourceUrl(CARD),
      body: { code: 'LC-OWN', title: 'Quince orchard notes', amount: 7, body: 'my quince trees' },
    });
    assert.equal(own.statusCode, 200, own.body);
    await indexed(undefined, 'quince', 3);
    await indexed(owner, 'quince', 1);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const size of SIZES) {
    test(`${size.label}: the list exports its filtered rows as CSV and the selected rows as Excel`, async () => {
      const { page, problems, context } = await newContext(browser, await baseUrl());
      await page.setViewportSize({ width: size.width, height: size.height });
      page.setDefaultTimeout(30_000);
      await login(page, 'Administrator', ADMIN_PASSWORD);
      await page.goto(`/app/ledger-card?filters=${encodeURIComponent(JSON.stringify([['amount', '>', 5]]))}&order=amount%20asc`);
      await page.getByRole('cell', { name: 'Quince secret ledger' }).waitFor();

      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: `Export ${CARD}` });
      await dialog.getByText('All 4 matching rows').waitFor();
      await assertAccessible(page);
      await screenshot(page, `data-export-dialog-${size.label}`);
      const csvFile = await downloadFrom(page, () => dialog.getByRole('button', { name: 'Download' }).click());
      assert.equal(csvFile.download.suggestedFilename(), `${CARD}.csv`);
      const rows = parse(csvFile.bytes, { bom: true }) as string[][];
      assert.deepEqual(rows, [
        ['Sr', 'ID', 'Title', 'Amount'],
        ['1', 'LC-OWN', 'Quince orchard notes', '7'],
        ['2', 'LC-001', 'Zoë’s crème ledger', '12.5'],
        // A cell that starts with = is neutralised against formula injection (docs/import-export.md).
        ['3', 'LC-002', "'=SUM(A1:A2) looks like a formula", '40'],
        ['4', 'LC-HIDDEN', 'Quince secret ledger', '99'],
      ]);
      await dialog.waitFor({ state: 'detached' });

      await page.getByRole('checkbox', { name: 'Select LC-001' }).check();
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      await dialog.getByLabel('Excel (.xlsx)').check();
      assert.equal(await dialog.getByLabel('Only the 1 selected').isChecked(), true, 'selected rows are the default scope');
      const xlsx = await downloadFrom(page, () => dialog.getByRole('button', { name: 'Download' }).click());
      assert.equal(xlsx.download.suggestedFilename(), `${CARD}.xlsx`);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
      const sheet = book.worksheets[0]!;
      const values = sheet
        .getSheetValues()
        .filter(Boolean)
        .map((r) => (r as unknown[]).slice(1));
      assert.deepEqual(values, [
        ['Sr', 'ID', 'Title', 'Amount'],
        [1, 'LC-001', 'Zoë’s crème ledger', 12.5],
      ]);
      assert.deepEqual(problems, []);
      await context.close();
    });

    test(`${size.label}: the top bar search finds across DocTypes by keyboard, never a document the user may not read`, async () => {
      const { page, problems, context } = await newContext(browser, await baseUrl());
      await page.setViewportSize({ width: size.width, height: size.height });
      page.setDefaultTimeout(30_000);
      await login(page, owner.name, USER_PASSWORD);
      const box = page.getByRole('combobox', { name: 'Search all documents' });
      await box.fill('quince');
      const list = page.getByRole('listbox', { name: 'Search results' });
      await list.getByRole('option').first().waitFor();
      await page.getByRole('status').filter({ hasText: '1 result' }).waitFor({ state: 'attached' });
      assert.deepEqual(
        await list
          .getByRole('option')
          .allInnerTexts()
          .then((t) => t.map((s) => s.replace(/\s+/g, ' ').trim())),
        [`${CARD} Quince orchard notes · LC-OWN Body : my quince trees`],
      );
      assert.equal(await page.getByText('Quince secret ledger').count(), 0, 'a document the user may not read never shows');
      assert.equal(await box.getAttribute('aria-expanded'), 'true');
      await assertAccessible(page);
      await screenshot(page, `data-search-owner-${size.label}`);

      await box.press('Escape');
      assert.equal(await box.getAttribute('aria-expanded'), 'false');
      await box.press('ArrowDown');
      assert.equal(await box.getAttribute('aria-activedescendant'), await list.getByRole('option').first().getAttribute('id'));
      await box.press('Enter');
      await urlMatches(page, /\/app\/ledger-card\/LC-OWN$/);
      await page
        .getByRole('heading', { name: /Quince orchard notes|LC-OWN/ })
        .first()
        .waitFor();
      assert.equal(await box.inputValue(), '', 'a choice clears the box');

      // The viewer may read cards but not export them: no Export button.
      const other = await newContext(browser, await baseUrl());
      await other.page.setViewportSize({ width: size.width, height: size.height });
      await login(other.page, 'card-viewer@example.com', USER_PASSWORD);
      await other.page.goto('/app/ledger-card');
      await other.page.getByRole('cell', { name: 'Small change' }).waitFor();
      assert.equal(await other.page.getByRole('button', { name: 'Export', exact: true }).count(), 0);
      await other.context.close();
      assert.deepEqual([...problems, ...other.problems], []);
      await context.close();
    });

    test(`${size.label}: arrow keys move through results of several documents, Esc closes`, async () => {
      const { page, problems, context } = await newContext(browser, await baseUrl());
      await page.setViewportSize({ width: size.width, height: size.height });
      page.setDefaultTimeout(30_000);
      await login(page, 'Administrator', ADMIN_PASSWORD);
      const box = page.getByRole('combobox', { name: 'Search all documents' });
      await box.fill('quince');
      const options = page.getByRole('listbox', { name: 'Search results' }).getByRole('option');
      await page.getByRole('status').filter({ hasText: '3 results' }).waitFor({ state: 'attached' });
      assert.equal(await options.count(), 3);
      const ids = await Promise.all([0, 1, 2].map((i) => options.nth(i).getAttribute('id')));
      await box.press('ArrowDown');
      assert.equal(await box.getAttribute('aria-activedescendant'), ids[1]);
      await box.press('ArrowUp');
      await box.press('ArrowUp');
      assert.equal(await box.getAttribute('aria-activedescendant'), ids[2], 'up from the first wraps to the last');
      assert.equal(await options.nth(2).getAttribute('aria-selected'), 'true');
      await assertAccessible(page);
      await screenshot(page, `data-search-admin-${size.label}`);
      await box.press('Escape');
      await page.getByRole('listbox', { name: 'Search results' }).waitFor({ state: 'hidden' });
      await box.press('Escape');
      assert.equal(await box.inputValue(), '', 'a second Esc empties the box');
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test('a user who may read only their own cards exports only those', async () => {
    const { page, problems, context } = await newContext(browser, await baseUrl());
    await page.setViewportSize({ width: 1440, height: 900 });
    page.setDefaultTimeout(30_000);
    await login(page, owner.name, USER_PASSWORD);
    await page.goto('/app/ledger-card');
    await page.getByRole('cell', { name: 'Quince orchard notes' }).waitFor();
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Export ${CARD}` });
    await dialog.getByText('All 1 matching row').waitFor();
    const file = await downloadFrom(page, () => dialog.getByRole('button', { name: 'Download' }).click());
    assert.deepEqual(parse(file.bytes, { bom: true }), [
      ['Sr', 'ID', 'Title', 'Amount'],
      ['1', 'LC-OWN', 'Quince orchard notes', '7'],
    ]);
    assert.deepEqual(problems, []);
    await context.close();
  });

  let base: string | undefined;
  async function baseUrl(): Promise<string> {
    base ??= await listen(t);
    return base;
  }
});
