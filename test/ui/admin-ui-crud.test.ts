import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { axeViolations, browserSkipReason, urlMatches, launchBrowser, listen, newContext, screenshot } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The admin UI in a real browser, as a System Manager: sign in, build DocTypes (a child table and a
 * Link among the fields) with the builder, then create, edit, list, filter and delete documents,
 * and take a document through submit, cancel and amend. One browser serves the whole file; the
 * site runs on the first engine of the matrix (the UI only speaks HTTP; the API under it is
 * tested on both engines by the API suites).
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];

describe(`admin UI: documents (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let base: string;

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    // A child table and a Link target made through the API; the parent is built in the UI below.
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'UI Line',
          istable: 1,
          module: 'Shop',
          fields: [
            { fieldname: 'item', label: 'Item', fieldtype: 'Data', in_list_view: 1, reqd: 1 },
            { fieldname: 'qty', label: 'Qty', fieldtype: 'Int', in_list_view: 1 },
          ],
        },
      }),
    );
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'UI Customer',
          module: 'Shop',
          autoname: 'field:customer_name',
          fields: [{ fieldname: 'customer_name', label: 'Customer Name', fieldtype: 'Data', reqd: 1, in_list_view: 1 }],
          permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
        },
      }),
    );
    for (const customer_name of ['Acme', 'Globex', 'Initech']) {
      dataOf(await t.request({ method: 'POST', url: '/api/resource/UI Customer', body: { customer_name } }));
    }
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the login screen refuses a wrong password and signs the Administrator in', async () => {
    await page.goto('/app/ui-customer');
    await urlMatches(page, /\/login\?redirect=/);
    await page.getByLabel('Email or user name').fill('Administrator');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid login credentials' }).waitFor();
    await screenshot(page, '01-login');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back to the deep link the visit started from.
    await urlMatches(page, /\/app\/ui-customer$/);
    await page.getByRole('heading', { name: 'UI Customer' }).waitFor();
    await page.getByRole('link', { name: 'fw home' }).click();
    await page.getByRole('heading', { name: 'Shop' }).waitFor();
    await screenshot(page, '02-home');
    assert.deepEqual(problems, []);
  });

  test('the builder creates a submittable DocType with a Link and a child table', async () => {
    await page.goto('/app/doctype/new');
    await page.getByRole('textbox', { name: /^Name/ }).fill('UI Order');
    await page.getByLabel('Module').fill('Shop');
    await page.getByLabel('Submittable').check();
    await page.getByLabel('Track views').check();
    const fields: [string, string, string, boolean][] = [
      ['Customer', 'Link', 'UI Customer', true],
      ['Status', 'Select', 'Open\nClosed', false],
      ['Amount', 'Currency', '', false],
      ['Lines', 'Table', 'UI Line', false],
      ['Notes', 'Text Editor', '', false],
    ];
    // The blank DocType starts with a Title row; replace it by the fields above.
    await page.getByRole('button', { name: 'Remove field 1' }).click();
    for (const [i, [label, type, options, inList]] of fields.entries()) {
      await page.getByRole('button', { name: '+ Add field' }).click();
      const n = i + 1;
      await page.getByLabel(`Label of field ${n}`).fill(label);
      await page.getByLabel(`Type of field ${n}`).selectOption(type);
      if (options) await page.getByLabel(`Options of field ${n}`).fill(options);
      if (inList) await page.getByLabel(`Field ${n} in list view`).check();
    }
    await page.getByLabel('Field 1 mandatory').check();
    await page.getByLabel('Rule 1: submit').check();
    await page.getByLabel('Rule 1: cancel').check();
    await page.getByLabel('Rule 1: amend').check();
    await screenshot(page, '03-doctype-builder');
    await page.keyboard.press('Control+s');
    await urlMatches(page, /\/app\/doctype\/UI Order$/);
    const saved = dataOf(await t.request({ method: 'GET', url: '/api/resource/DocType/UI Order' }));
    assert.equal(saved.is_submittable, 1);
    assert.equal(saved.track_views, 1, 'opening its forms records views (docs/collaboration.md "Views")');
    const byName = Object.fromEntries((saved.fields as { fieldname: string; fieldtype: string; options?: string }[]).map((f) => [f.fieldname, f]));
    assert.equal(byName.customer.fieldtype, 'Link');
    assert.equal(byName.customer.options, 'UI Customer');
    assert.equal(byName.lines.fieldtype, 'Table');
    assert.equal(byName.lines.options, 'UI Line');
    assert.deepEqual(problems, []);
  });

  test('a new document is filled through the controls and saved with Ctrl+S', async () => {
    await page.goto('/app/ui-order');
    await page.getByRole('heading', { name: 'UI Order' }).waitFor();
    // The shortcut works once the list knows the user may create: the New button says so.
    await page.getByRole('link', { name: 'New UI Order' }).waitFor();
    await page.keyboard.press('Control+b');
    await urlMatches(page, /\/app\/ui-order\/new$/);
    // Saving without the mandatory Link shows the error beside the field.
    await page.keyboard.press('Control+s');
    await page.locator('[data-fieldname="customer"] .control-error').waitFor();
    const customer = page.getByRole('combobox', { name: /Customer/ });
    await customer.fill('Glob');
    await page.getByRole('option', { name: 'Globex' }).click();
    await page.getByLabel('Status').selectOption('Open');
    await page.getByLabel('Amount').fill('1250.5');
    await page.getByRole('button', { name: '+ Add row to Lines' }).click();
    await page.getByRole('button', { name: '+ Add row to Lines' }).click();
    await page.getByLabel('Item row 1').fill('Bolts');
    await page.getByLabel('Qty row 1').fill('40');
    await page.getByLabel('Item row 2').fill('Nuts');
    await page.getByLabel('Qty row 2').fill('60');
    await page.getByRole('button', { name: 'Move row 2 up' }).click();
    await page.getByRole('textbox', { name: 'Notes' }).fill('Deliver before Friday');
    await screenshot(page, '04-form-new');
    await page.keyboard.press('Control+s');
    await urlMatches(page, /\/app\/ui-order\/(?!new)[^/]+$/);
    const name = decodeURIComponent(page.url().split('/').pop()!);
    const doc = dataOf(await t.request({ method: 'GET', url: `/api/resource/UI Order/${encodeURIComponent(name)}` }));
    assert.equal(doc.customer, 'Globex');
    assert.equal(doc.amount, 1250.5);
    assert.deepEqual(
      (doc.lines as { item: string; qty: number }[]).map((l) => [l.item, l.qty]),
      [
        ['Nuts', 60],
        ['Bolts', 40],
      ],
    );
    assert.match(String(doc.notes), /Deliver before Friday/);
    await page.getByRole('button', { name: 'Submit' }).waitFor();
    await screenshot(page, '05-form-saved');
    assert.deepEqual(problems, []);
  });

  test('the list shows, searches, filters, pages and deletes documents', async () => {
    for (const [customer, amount] of [
      ['Acme', 10],
      ['Acme', 20],
      ['Initech', 30],
    ] as const) {
      dataOf(await t.request({ method: 'POST', url: '/api/resource/UI Order', body: { customer, amount, status: 'Closed' } }));
    }
    await page.goto('/app/ui-order');
    await page.locator('[data-total]').filter({ hasText: 'of 4' }).waitFor();
    // The Link column comes from in_list_view; a filter built in the UI becomes the API's filters.
    await page.getByRole('columnheader', { name: 'Customer' }).waitFor();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByLabel('Field of filter 1').selectOption('customer');
    await page.getByLabel('Condition of filter 1').selectOption('=');
    // A Link filter's value is chosen from its suggestions (docs/admin-ui.md "Lists").
    await page.getByLabel('Value of filter 1').fill('Acme');
    await page.getByRole('option', { name: /^Acme/ }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('[data-total]').filter({ hasText: 'of 2' }).waitFor();
    assert.match(decodeURIComponent(page.url()), /filters=\[\["customer","=","Acme"\]\]/);
    await screenshot(page, '06-list-filtered');
    // The filter survives a reload (it lives in the URL); removing its chip shows everything again.
    await page.reload();
    await page.locator('[data-total]').filter({ hasText: 'of 2' }).waitFor();
    await page.getByRole('button', { name: /Remove filter Customer equals Acme/ }).click();
    await page.locator('[data-total]').filter({ hasText: 'of 4' }).waitFor();
    // The search box (focused with /) looks in names.
    const first = dataOf(await t.request({ method: 'GET', url: '/api/resource/UI Order?fields=["name"]&filters=[["customer","=","Initech"]]' })) as unknown as {
      name: string;
    }[];
    await page.locator('body').click();
    await page.keyboard.press('/');
    await page.keyboard.type(first[0].name.slice(0, 6));
    await page.locator('[data-total]').filter({ hasText: 'of 1' }).waitFor();
    await page.getByLabel('Search UI Order').fill('');
    await page.locator('[data-total]').filter({ hasText: 'of 4' }).waitFor();
    // Columns: add Amount through the picker.
    await page.getByRole('button', { name: 'Columns' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/Amount/)
      .check();
    await page.keyboard.press('Escape');
    await page.getByRole('columnheader', { name: 'Amount' }).waitFor();
    // Sort by amount ascending through its header (the first click sorts ascending, docs/admin-ui.md "Lists").
    await page.getByRole('button', { name: 'Amount', exact: true }).click();
    await urlMatches(page, /order=amount( |\+)asc/);
    await page.getByRole('cell', { name: '10' }).first().waitFor();
    await page.getByLabel('Rows per page').selectOption('100');
    await urlMatches(page, /limit=100/);
    // Bulk delete the two Acme orders.
    const acme = dataOf(await t.request({ method: 'GET', url: '/api/resource/UI Order?fields=["name"]&filters=[["customer","=","Acme"]]' })) as unknown as {
      name: string;
    }[];
    for (const { name } of acme) await page.getByLabel(`Select ${name}`).check();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('[data-total]').filter({ hasText: 'of 2' }).waitFor();
    const left = dataOf(await t.request({ method: 'GET', url: '/api/resource/UI Order?fields=["customer"]' })) as unknown as { customer: string }[];
    assert.deepEqual(left.map((r) => r.customer).sort(), ['Globex', 'Initech']);
    await screenshot(page, '07-list');
    assert.deepEqual(problems, []);
  });

  test('a document is edited, submitted, cancelled and amended from its form', async () => {
    const [order] = dataOf(
      await t.request({ method: 'GET', url: '/api/resource/UI Order?fields=["name"]&filters=[["customer","=","Globex"]]' }),
    ) as unknown as { name: string }[];
    await page.goto(`/app/ui-order/${encodeURIComponent(order.name)}`);
    await page.getByLabel('Amount').fill('99');
    await page.getByText('Not saved').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    assert.equal(dataOf(await t.request({ method: 'GET', url: `/api/resource/UI Order/${order.name}` })).amount, 99);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Submit' }).click();
    await page.locator('.page-head .badge', { hasText: 'Submitted' }).waitFor();
    // A submitted document's fields are read-only.
    assert.equal(await page.getByLabel('Amount').getAttribute('readonly'), '');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel document' }).click();
    await page.locator('.page-head .badge', { hasText: 'Cancelled' }).waitFor();
    assert.equal(dataOf(await t.request({ method: 'GET', url: `/api/resource/UI Order/${order.name}` })).docstatus, 2);
    await page.getByRole('button', { name: 'Amend' }).click();
    await urlMatches(page, /\/app\/ui-order\/new$/);
    await page.getByRole('button', { name: 'Save' }).click();
    await urlMatches(page, new RegExp(`/app/ui-order/${order.name}-1$`));
    const amended = dataOf(await t.request({ method: 'GET', url: `/api/resource/UI Order/${order.name}-1` }));
    assert.equal(amended.amended_from, order.name);
    assert.equal(amended.customer, 'Globex');
    assert.equal((amended.lines as unknown[]).length, 2);
    await screenshot(page, '08-form-amended');
    // The version timeline shows the earlier edit of the amount.
    await page.goto(`/app/ui-order/${encodeURIComponent(order.name)}`);
    await page.getByRole('region', { name: 'Activity' }).getByText('changed Amount from “1250.5” to “99”').waitFor();
    assert.deepEqual(problems, []);
  });

  test('the main screens have no serious accessibility violations', async () => {
    const screens = ['/app', '/app/ui-order', '/app/ui-order/new', '/app/doctype/UI%20Order', '/app/user'];
    for (const url of screens) {
      await page.goto(url);
      await page.locator('.page-head h1').waitFor();
      await page.waitForLoadState('networkidle');
      const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], `${url}: ${JSON.stringify(serious)}`);
    }
  });
});
