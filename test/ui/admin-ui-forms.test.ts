import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { createDocType, dataOf, readDoc, resourceUrl } from '../helpers/document-api.js';
import { uploadFile } from '../helpers/file-api.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { query } from '../helpers/permission-users.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The form in a real browser (docs/admin-ui.md "Forms" and "Undo"): a Select without a blank starts
 * at its first option; choosing a Link fills its fetch_from fields at once and shows the linked
 * title beside the ID; the focus goes to the first invalid field (opening its tab); Ctrl+B makes
 * bold in a Text Editor while Ctrl+S still saves; the timeline speaks in words and restores an
 * earlier version as a new save; the Rename dialog starts with the name; comments and attachments
 * beside the form; a deleted document restored from Deleted Documents. Every screen under axe
 * (nothing at any impact) at 1440×900 and 390×844, with screenshots.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI form browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const CUSTOMER = 'UI Customer';
const ORDER = 'UI Order';
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

describe(`admin UI: forms and undo (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const failed: string[] = [];
  let acme: Record<string, unknown>;

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
      await screenshot(page, `forms-${name}-${size.name}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }
  async function orderNamed(subject: string): Promise<Record<string, unknown>> {
    const rows = dataOf(await t.request({ method: 'GET', url: resourceUrl(ORDER) + query({ fields: ['*'], filters: [['subject', '=', subject]] }) }));
    assert.equal((rows as unknown as unknown[]).length, 1);
    return (rows as unknown as Record<string, unknown>[])[0]!;
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
    await createDocType(t, {
      name: CUSTOMER,
      module: 'Desk',
      autoname: 'hash',
      title_field: 'customer_name',
      search_fields: 'city',
      fields: [
        { fieldname: 'customer_name', label: 'Customer Name', fieldtype: 'Data', reqd: 1 },
        { fieldname: 'city', label: 'City', fieldtype: 'Data' },
      ],
    });
    await createDocType(t, {
      name: ORDER,
      module: 'Desk',
      autoname: 'hash',
      title_field: 'subject',
      track_changes: 1,
      allow_rename: 1,
      fields: [
        { fieldname: 'subject', label: 'Subject', fieldtype: 'Data', reqd: 1, in_list_view: 1 },
        { fieldname: 'priority', label: 'Priority', fieldtype: 'Select', options: 'Low\nMedium\nHigh' },
        { fieldname: 'customer', label: 'Customer', fieldtype: 'Link', options: CUSTOMER },
        { fieldname: 'customer_city', label: 'Customer City', fieldtype: 'Data', fetch_from: 'customer.city', read_only: 1 },
        { fieldname: 'notes', label: 'Notes', fieldtype: 'Text Editor' },
        { fieldname: 'more_tab', label: 'More', fieldtype: 'Tab Break' },
        { fieldname: 'reference', label: 'Reference', fieldtype: 'Data', reqd: 1 },
      ],
    });
    acme = dataOf(await t.request({ method: 'POST', url: resourceUrl(CUSTOMER), body: { customer_name: 'Acme Corp', city: 'Lyon' } }));
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('a new form: Select at its first option, fetch_from and the link title at once, focus on the first invalid field', async () => {
    await page.goto('/app/ui-order/new');
    const priority = page.getByLabel('Priority');
    assert.equal(await priority.inputValue(), 'Low');
    const customer = page.getByLabel('Customer', { exact: true });
    await customer.fill('Acme');
    await page.getByRole('option', { name: /Acme Corp/ }).click();
    assert.equal(await customer.inputValue(), acme.name);
    await page.locator('[data-fieldname="customer"] [data-link-title]', { hasText: 'Acme Corp' }).waitFor();
    const city = page.getByLabel('Customer City');
    await city.waitFor();
    assert.equal(await city.inputValue(), 'Lyon', 'fetched before any save');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement?.id === 'f-subject');
    await page.getByLabel(/^Subject/).fill('First order');
    await page.getByRole('button', { name: 'Save' }).click();
    // The next invalid field is on the More tab, which opens.
    await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement?.id === 'f-reference');
    await checkScreens('new-invalid', () => page.getByRole('tab', { name: 'More', selected: true }).waitFor());
    await page.getByLabel(/^Reference/).fill('R-1');
    await page.keyboard.press('Control+s');
    await page.getByText('Created', { exact: true }).waitFor();
    await urlMatches(page, /\/app\/ui-order\/(?!new$)[a-z0-9]+$/);
    const stored = await orderNamed('First order');
    assert.deepEqual([stored.priority, stored.customer, stored.customer_city], ['Low', acme.name, 'Lyon']);
    assert.deepEqual(failed, []);
  });

  test('Ctrl+B makes bold inside the Text Editor and Ctrl+S still saves; Rename starts with the name', async () => {
    const order = await orderNamed('First order');
    await page.goto(`/app/ui-order/${order.name}`);
    const editor = page.getByRole('textbox', { name: 'Notes' });
    await editor.click();
    await page.keyboard.type('plain ');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('strong');
    await urlMatches(page, new RegExp(`/app/ui-order/${order.name}$`));
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();
    const notes = String((await readDoc(t, ORDER, String(order.name))).notes);
    assert.match(notes, /<(b|strong)>strong<\/(b|strong)>/);
    await page.getByRole('button', { name: 'Rename' }).click();
    assert.equal(await page.getByRole('dialog').getByLabel('New name').inputValue(), order.name);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  });

  test('comments and attachments beside the form; the timeline in words restores an earlier version', async () => {
    const order = await orderNamed('First order');
    const up = await uploadFile(t, 'spec.txt', 'the spec', { doctype: ORDER, docname: String(order.name) });
    assert.equal(up.statusCode, 200, up.body);
    await page.goto(`/app/ui-order/${order.name}`);
    const side = page.getByRole('complementary', { name: 'Attachments and comments' });
    await side.locator('[data-attachments]').getByRole('link', { name: 'spec.txt' }).waitFor();
    await side.getByLabel('Add a comment').fill('Looks good to me');
    await side.getByRole('button', { name: 'Comment' }).click();
    await side.locator('[data-comments]').getByText('Looks good to me').waitFor();
    const comments = dataOf(
      await t.request({ method: 'GET', url: resourceUrl('Comment') + query({ fields: ['content'], filters: [['reference_name', '=', order.name]] }) }),
    ) as unknown as { content: string }[];
    assert.deepEqual(
      comments.map((c) => c.content),
      ['Looks good to me'],
    );

    const subject = page.getByLabel(/^Subject/);
    await subject.fill('Second order');
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).first().waitFor();
    await page.locator('[data-version]', { hasText: 'changed Subject from “First order” to “Second order”' }).waitFor();
    await subject.fill('Third order');
    await page.keyboard.press('Control+s');
    await page.locator('[data-version]', { hasText: 'changed Subject from “Second order” to “Third order”' }).waitFor();
    await checkScreens('timeline', () => page.locator('[data-version]').first().waitFor());
    const older = page.locator('[data-version]', { hasText: 'to “Second order”' });
    await older.getByRole('button', { name: /Restore this version/ }).click();
    await page.locator('[data-confirm]').click();
    await page.getByText('Restored the earlier version').waitFor();
    for (let i = 0; i < 100 && (await subject.inputValue()) !== 'Second order'; i++) await page.waitForTimeout(100);
    assert.equal(await subject.inputValue(), 'Second order');
    assert.equal((await readDoc(t, ORDER, String(order.name))).subject, 'Second order');
    await page.locator('[data-version]', { hasText: 'changed Subject from “Third order” to “Second order”' }).waitFor();
    assert.deepEqual(failed, []);
    assert.deepEqual(problems, []);
  });

  test('a deleted document comes back from Deleted Documents', async () => {
    const order = await orderNamed('Second order');
    await page.goto(`/app/ui-order/${order.name}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog')
      .getByText(/can restore it from Deleted Documents/)
      .waitFor();
    await page.locator('[data-confirm]').click();
    await urlMatches(page, /\/app\/ui-order(\?.*)?$/);
    const [archive] = dataOf(
      await t.request({ method: 'GET', url: resourceUrl('Deleted Document') + query({ fields: ['name'], filters: [['deleted_name', '=', order.name]] }) }),
    ) as unknown as { name: string }[];
    await page.goto(`/app/deleted-document/${archive!.name}`);
    const bar = page.locator('[data-restore-bar]');
    await bar.getByText(`${ORDER} ${order.name} was deleted.`).waitFor();
    await checkScreens('deleted-document', () => bar.waitFor());
    await bar.getByRole('button', { name: 'Restore' }).click();
    await bar.getByRole('link', { name: `${ORDER} ${order.name}` }).waitFor();
    assert.equal((await readDoc(t, ORDER, String(order.name))).subject, 'Second order');
    await bar.getByRole('link', { name: `${ORDER} ${order.name}` }).click();
    await page.getByRole('heading', { name: 'Second order' }).waitFor();
    assert.deepEqual(failed, []);
    assert.deepEqual(problems, []);
  });
});
