import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { createRole, createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { ARTIFACTS, axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { sidewaysOverflow } from '../helpers/page-overflow.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The visual DocType builder (fieldnames from labels, reserved names, drag to reorder, the live
 * preview, the DocType picker, a refusal placed on its row, Submittable after the first save), the
 * buttons a form offers by the caller's rights on the document, and the User and System Settings
 * forms; each under axe at a desktop and a phone size.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
const NONE = { write: 0, create: 0, delete: 0, submit: 0, cancel: 0, amend: 0 };

describe(`admin UI: builder, rights and users (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let base: string;
  let page: Page;
  let problems: string[];

  async function checkScreens(p: Page, name: string, ready: () => Promise<void>) {
    for (const size of SIZES) {
      await p.setViewportSize({ width: size.width, height: size.height });
      await ready();
      assert.deepEqual(await axeViolations(p), [], `${name} at ${size.name}`);
      assert.deepEqual(await sidewaysOverflow(p), [], `${name} at ${size.name} scrolls sideways`);
      await screenshot(p, `builder-rights-${name}-${size.name}`);
    }
    await p.setViewportSize({ width: 1440, height: 900 });
  }
  const row = (i: number) => page.locator(`[data-field-row="${i}"]`);

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the builder derives fieldnames, names problems on their rows, reorders by drag and previews the layout', async () => {
    await page.goto('/app/doctype/new');
    await page.getByLabel(/^Name/).fill('Work Order');
    // A label whose fieldname is reserved: the row says so before anything is saved.
    await page.getByLabel('Label of field 1').fill('Name');
    assert.equal(await page.getByLabel('Fieldname of field 1').inputValue(), 'name_1');
    await page.getByText('"name" is reserved for a standard field, so the fieldname is name_1').waitFor();
    const add = page.locator('[data-add-field]');
    const addField = async (label: string, type: string) => {
      await add.click();
      const i = (await page.locator('[data-field-row]').count()) - 1;
      await page.getByLabel(`Type of field ${i + 1}`).selectOption(type);
      if (label) await page.getByLabel(`Label of field ${i + 1}`).fill(label);
      return i;
    };
    const linkRow = await addField('Customer', 'Link');
    // The DocType picker offers DocTypes by name (a datalist the browser searches).
    await page.getByLabel(`Options of field ${linkRow + 1}: the DocType`).fill('User');
    assert.ok((await page.locator('#doctypes-all option').evaluateAll((o) => o.map((x) => (x as unknown as { value: string }).value))).includes('User'));
    await addField('', 'Column Break');
    await addField('Due Date', 'Date');
    await addField('Notes', 'Tab Break');
    await addField('Remarks', 'Small Text');
    assert.equal(await page.getByLabel('Fieldname of field 3').inputValue(), 'column_break');
    assert.equal(await page.getByLabel('Fieldname of field 4').inputValue(), 'due_date');
    // The preview draws two columns on the first tab, and a second tab.
    const preview = page.locator('[data-form-preview]');
    await preview.locator('[data-columns="2"]').waitFor();
    await preview.getByRole('button', { name: 'Notes' }).waitFor();

    // Drag "Due Date" (row 4) onto row 1: it becomes the first field.
    await row(3).locator('.drag-handle').dragTo(row(0));
    assert.equal(await page.getByLabel('Label of field 1').inputValue(), 'Due Date');
    assert.equal(await page.getByLabel('Label of field 2').inputValue(), 'Name');
    const customer = 2;
    assert.equal(await page.getByLabel(`Label of field ${customer + 1}`).inputValue(), 'Customer');

    // A fieldname typed over the derived one that is reserved: named on its row, and Save refuses before asking the server.
    await page.getByLabel('Fieldname of field 2').fill('owner');
    await row(1).and(page.locator('.row-invalid')).waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-form-errors]').filter({ hasText: 'Field 2: Fieldname "owner" is reserved for a standard field' }).waitFor();
    assert.equal((await t.request({ method: 'GET', url: '/api/resource/DocType/Work Order' })).statusCode, 404);
    await page.getByLabel('Fieldname of field 2').fill('order_name');

    // The server's refusal names the bad value, and its row is highlighted.
    await page.getByLabel(`Options of field ${customer + 1}: the DocType`).fill('No Such DocType');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-form-errors]').filter({ hasText: 'Field customer' }).waitFor();
    await row(customer).and(page.locator('.row-invalid')).waitFor();
    assert.equal(await page.getByLabel(`Fieldname of field ${customer + 1}`).getAttribute('aria-invalid'), 'true');
    await checkScreens(page, 'builder-error', () => row(customer).waitFor());
    await page.getByLabel(`Options of field ${customer + 1}: the DocType`).fill('User');
    assert.equal(await row(customer).and(page.locator('.row-invalid')).count(), 0);
    await page.keyboard.press('Control+s');
    await urlMatches(page, /\/app\/doctype\/Work Order$/);
    const saved = dataOf(await t.request({ method: 'GET', url: '/api/resource/DocType/Work Order' }));
    assert.deepEqual(
      (saved.fields as { fieldname: string }[]).map((f) => f.fieldname),
      ['due_date', 'order_name', 'customer', 'column_break', 'notes', 'remarks'],
    );
    await checkScreens(page, 'builder', () => preview.waitFor());
  });

  test('after the first save Submittable and Child table change (explained), Single is fixed, and submit rights are offered', async () => {
    await page.goto('/app/doctype/Work Order');
    const single = page.getByRole('checkbox', { name: 'Single' });
    await single.waitFor();
    assert.equal(await single.isDisabled(), true);
    await page.getByText('Single is fixed at the first save').waitFor();
    await page.getByRole('checkbox', { name: 'Submittable' }).check();
    await page.locator('[data-flag-notes]').filter({ hasText: 'Documents already saved stay Drafts' }).waitFor();
    const offer = page.locator('[data-submit-offer]');
    await offer.filter({ hasText: 'System Manager' }).waitFor();
    await checkScreens(page, 'builder-submittable', () => offer.waitFor());
    await offer.getByRole('button', { name: 'Give them Submit, Cancel and Amend' }).click();
    assert.equal(await offer.count(), 0);
    await page.getByLabel('Rule 1: submit').isChecked();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('DocType saved').waitFor();
    const saved = dataOf(await t.request({ method: 'GET', url: '/api/resource/DocType/Work Order' }));
    assert.equal(saved.is_submittable, 1);
    const perm = (saved.permissions as Record<string, unknown>[]).find((p) => p.role === 'System Manager')!;
    assert.deepEqual([perm.submit, perm.cancel, perm.amend], [1, 1, 1]);
    // Child table can be ticked after saving too (the API allows it), with its explanation.
    await page.getByRole('checkbox', { name: 'Child table' }).check();
    await page.locator('[data-flag-notes]').filter({ hasText: 'rows of a Table field' }).waitFor();
    await page.getByRole('checkbox', { name: 'Child table' }).uncheck();
    assert.deepEqual(problems, []);
  });

  test('a form offers only what the caller may do on that document; who may not create is told so', async () => {
    await createRole(t, 'Desk Clerk');
    await createUser(t, 'clerk@rights.test', { roles: ['Desk Clerk'] });
    await createUser(t, 'other@rights.test', { roles: ['Desk Clerk'] });
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'Desk Memo',
          module: 'Custom',
          is_submittable: 1,
          allow_rename: 1,
          fields: [{ fieldname: 'subject', label: 'Subject', fieldtype: 'Data', reqd: 1 }],
          permissions: [
            { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, submit: 1, cancel: 1, amend: 1 },
            // Desk Clerks read every memo but write, delete and submit only their own; they never cancel.
            { role: 'Desk Clerk', read: 1, ...NONE },
            { role: 'Desk Clerk', if_owner: 1, read: 1, ...NONE, write: 1, create: 1, delete: 1, submit: 1 },
          ],
        },
      }),
    );
    const { context: otherCtx, page: other } = await newContext(browser, base);
    await login(other, 'other@rights.test', USER_PASSWORD);
    await other.goto('/app/desk-memo/new');
    await other.getByLabel(/^Subject/).fill("Other's memo");
    await other.keyboard.press('Control+s');
    await urlMatches(other, /\/app\/desk-memo\/[^/]+$/);
    const othersMemo = decodeURIComponent(new URL(other.url()).pathname.split('/').pop()!);
    await otherCtx.close();

    const { context, page: clerk, problems: clerkProblems } = await newContext(browser, base);
    clerk.setDefaultTimeout(20_000);
    try {
      await login(clerk, 'clerk@rights.test', USER_PASSWORD);
      // Someone else's memo: the DocType grants write, this document does not.
      await clerk.goto(`/app/desk-memo/${othersMemo}`);
      await clerk.getByText('Read only').waitFor();
      for (const name of ['Save', 'Delete', 'Rename', 'Submit']) assert.equal(await clerk.getByRole('button', { name, exact: true }).count(), 0, name);
      await checkScreens(clerk, 'others-document', () => clerk.getByText('Read only').waitFor());
      // Their own memo: Save, Delete, Rename; once saved, Submit; once submitted, no Cancel (no right).
      await clerk.goto('/app/desk-memo/new');
      await clerk.getByLabel(/^Subject/).fill('My memo');
      await clerk.getByRole('button', { name: 'Save' }).click();
      await urlMatches(clerk, /\/app\/desk-memo\/[^/]+$/);
      await clerk.getByRole('button', { name: 'Delete', exact: true }).waitFor();
      await clerk.getByRole('button', { name: 'Rename', exact: true }).waitFor();
      await clerk.getByRole('button', { name: 'Submit', exact: true }).click();
      await clerk.getByRole('dialog').getByRole('button', { name: 'Submit' }).click();
      await clerk.locator('.badge', { hasText: 'Submitted' }).waitFor();
      assert.equal(await clerk.getByRole('button', { name: 'Cancel', exact: true }).count(), 0);
      assert.equal(await clerk.getByRole('button', { name: 'Delete', exact: true }).count(), 0);
      assert.deepEqual(clerkProblems, []);
    } finally {
      await context.close();
    }

    // A user who may not create: a message, not a blank read-only form.
    await createRole(t, 'Memo Reader');
    await createUser(t, 'reader@rights.test', { roles: ['Memo Reader'] });
    const memo = dataOf(await t.request({ method: 'GET', url: '/api/resource/DocType/Desk Memo' }));
    dataOf(
      await t.request({
        method: 'PUT',
        url: '/api/resource/DocType/Desk Memo',
        body: { permissions: [...(memo.permissions as object[]), { role: 'Memo Reader', read: 1, ...NONE }] },
      }),
    );
    const { context: readerCtx, page: reader } = await newContext(browser, base);
    try {
      await login(reader, 'reader@rights.test', USER_PASSWORD);
      await reader.goto('/app/desk-memo/new');
      await reader.locator('[data-create-refused]').filter({ hasText: 'You may not create Desk Memo documents' }).waitFor();
      assert.equal(await reader.locator('form').count(), 0);
      assert.equal(await reader.getByRole('button', { name: 'Save' }).count(), 0);
      await checkScreens(reader, 'create-refused', () => reader.locator('[data-create-refused]').waitFor());
    } finally {
      await readerCtx.close();
    }

    // A log record offers no Save, not even to the Administrator (every field is read-only).
    const log = await t.request({
      method: 'POST',
      url: '/api/resource/Scheduled Job Log',
      body: { scheduled_job_type: 'test_ui.cleanup', frequency: 'daily', status: 'Complete', slot: '2026-12-01 00:00:00' },
    });
    await page.goto(`/app/scheduled-job-log/${encodeURIComponent(String(log.json().data.name))}`);
    await page.getByText('Read only').waitFor();
    assert.equal(await page.getByRole('button', { name: /^(Save|Update)$/ }).count(), 0);
  });

  test('a new user gets roles from a grid and Language and Time Zone from choices, with no current-password field', async () => {
    await createRole(t, 'Warehouse Keeper');
    await page.goto('/app/user/new');
    await page.getByLabel(/^Email/).fill('grid.person@example.com');
    await page.getByLabel(/^First Name/).fill('Grid');
    const grid = page.locator('[data-role-grid]');
    // Every role is a checkbox; the automatic ones are not offered.
    for (const role of ['System Manager', 'Warehouse Keeper', 'Desk Clerk']) await grid.getByRole('checkbox', { name: role, exact: true }).waitFor();
    for (const role of ['Guest', 'All', 'Administrator']) assert.equal(await grid.getByRole('checkbox', { name: role, exact: true }).count(), 0);
    await grid.getByRole('checkbox', { name: 'Warehouse Keeper', exact: true }).check();
    await grid.getByRole('checkbox', { name: 'Desk Clerk', exact: true }).check();
    await page.getByLabel('Language').selectOption('de');
    await page.getByLabel('Time Zone').selectOption('Europe/Berlin');
    assert.equal(await page.getByLabel(/Old Password|Current Password/i).count(), 0);
    await checkScreens(page, 'new-user', () => grid.waitFor());
    // A screen-sized picture for docs/admin-ui.md (a full-page one draws the sticky top bar mid-page).
    await page.getByLabel('Language').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'builder-rights-new-user-view.png') });
    await page.keyboard.press('Control+s');
    await urlMatches(page, /\/app\/user\/grid\.person@example\.com$/);
    const user = dataOf(await t.request({ method: 'GET', url: '/api/resource/User/grid.person@example.com' }));
    assert.deepEqual((user.roles as { role: string }[]).map((r) => r.role).sort(), ['Desk Clerk', 'Warehouse Keeper']);
    assert.equal(user.language, 'de');
    assert.equal(user.time_zone, 'Europe/Berlin');
    // Unticking removes the row and keeps the other.
    await page.locator('[data-role-grid]').getByRole('checkbox', { name: 'Desk Clerk', exact: true }).uncheck();
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();
    const after = dataOf(await t.request({ method: 'GET', url: '/api/resource/User/grid.person@example.com' }));
    assert.deepEqual(
      (after.roles as { role: string }[]).map((r) => r.role),
      ['Warehouse Keeper'],
    );
  });

  test('System Settings shows who changed it last, and its Time Zone is a choice', async () => {
    await page.goto('/app/system-settings');
    await page.getByRole('heading', { name: 'System Settings' }).waitFor();
    await page.getByLabel('Time Zone').selectOption('Asia/Tokyo');
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();
    await page.locator('[data-changed-by]').filter({ hasText: 'Last changed by Administrator' }).waitFor();
    assert.equal(dataOf(await t.request({ method: 'GET', url: '/api/resource/System Settings/System Settings' })).time_zone, 'Asia/Tokyo');
    await checkScreens(page, 'system-settings', () => page.locator('[data-changed-by]').waitFor());
    assert.deepEqual(problems, []);
  });
});
