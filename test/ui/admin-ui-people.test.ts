import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { createRole, createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The admin UI with several people at once: a user who may only read, two sessions editing one
 * document (live list refresh, a clean form reloading itself, a dirty one's banner with keep mine
 * and see theirs), and the administration screens (users, role permissions, System Settings, files).
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const NOTE = 'Collab Note';

describe(`admin UI: people (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let base: string;
  let admin: Page;
  let problems: string[];
  let noteName: string;

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    browser = await launchBrowser();
    ({ page: admin, problems } = await newContext(browser, base));
    admin.setDefaultTimeout(20_000);
    await createRole(t, 'Note Reader');
    await createRole(t, 'Note Writer');
    await createUser(t, 'reader@example.com', { roles: ['Note Reader'] });
    await createUser(t, 'writer@example.com', { roles: ['Note Writer'] });
    const none = { write: 0, create: 0, delete: 0, submit: 0, cancel: 0, amend: 0 };
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: NOTE,
          module: 'Team',
          track_changes: 1,
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1, in_list_view: 1 },
            { fieldname: 'amount', label: 'Amount', fieldtype: 'Int', in_list_view: 1 },
            { fieldname: 'attachment', label: 'Attachment', fieldtype: 'Attach' },
          ],
          permissions: [
            { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 },
            { role: 'Note Writer', read: 1, write: 1, create: 1, delete: 0 },
            { role: 'Note Reader', read: 1, ...none },
          ],
        },
      }),
    );
    noteName = String(dataOf(await t.request({ method: 'POST', url: `/api/resource/${NOTE}`, body: { title: 'Quarterly plan', amount: 3 } })).name);
    await login(admin, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('a user who may only read sees a read-only form, and a refused request shows its message', async () => {
    const { context, page, problems: readerProblems } = await newContext(browser, base);
    page.setDefaultTimeout(20_000);
    try {
      await login(page, 'reader@example.com', USER_PASSWORD);
      // Home lists only what the reader may read.
      await page.getByRole('link', { name: NOTE }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'DocTypes' }).count(), 0);
      await page.goto(`/app/collab-note/${noteName}`);
      await page.getByText('Read only').waitFor();
      assert.equal(await page.getByLabel(/^Title/).getAttribute('readonly'), '');
      assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
      await screenshot(page, '10-form-read-only');
      // The list offers no New button and no bulk actions.
      await page.goto('/app/collab-note');
      await page.locator('[data-total]').filter({ hasText: 'of 1' }).waitFor();
      assert.equal(await page.getByRole('link', { name: /^New/ }).count(), 0);
      // A deep link to what the reader may not open shows the server's refusal.
      await page.goto('/app/role');
      await page.getByRole('alert').filter({ hasText: 'No permission to read Role' }).waitFor();
      await screenshot(page, '11-refused');
      assert.deepEqual(readerProblems, []);
    } finally {
      await context.close();
    }
  });

  test('a save in one session refreshes the list and raises a banner in the other', async () => {
    const list = admin;
    const form = await admin.context().newPage();
    form.setDefaultTimeout(20_000);
    const { context, page: writer } = await newContext(browser, base);
    writer.setDefaultTimeout(20_000);
    try {
      await list.goto('/app/collab-note');
      await list.getByRole('cell', { name: 'Quarterly plan' }).waitFor();
      await form.goto(`/app/collab-note/${noteName}`);
      await form.getByLabel(/^Title/).waitFor();
      // Both pages are listening (the server confirmed their rooms) before the other session saves.
      await list.locator('html[data-realtime-joined]').waitFor({ state: 'attached' });
      await form.locator('html[data-realtime-joined]').waitFor({ state: 'attached' });
      await login(writer, 'writer@example.com', USER_PASSWORD);
      await writer.goto(`/app/collab-note/${noteName}`);
      await writer.getByLabel(/^Title/).fill('Quarterly plan (revised)');
      await writer.keyboard.press('Control+s');
      await writer.getByText('Saved', { exact: true }).waitFor();
      // No reload: the list heard list_update, the form heard doc_update.
      await list.getByRole('cell', { name: 'Quarterly plan (revised)' }).waitFor();
      // A clean form shows the new version by itself, with no banner (docs/admin-ui.md "Forms").
      const title = form.getByLabel(/^Title/);
      for (let i = 0; i < 100 && (await title.inputValue()) !== 'Quarterly plan (revised)'; i++) await form.waitForTimeout(100);
      assert.equal(await title.inputValue(), 'Quarterly plan (revised)');
      assert.equal(await form.locator('[data-remote-banner]').count(), 0);
      // A dirty one keeps the typing and shows one banner with the choices.
      await form.getByLabel('Amount').fill('7');
      await writer.getByLabel(/^Title/).fill('Quarterly plan (final)');
      await writer.keyboard.press('Control+s');
      const banner = form.locator('[data-remote-banner]');
      await banner.waitFor();
      assert.match(await banner.innerText(), /saved this document .* \(at \d\d:\d\d:\d\d\)/);
      assert.equal(await form.getByLabel('Amount').inputValue(), '7', 'the typing is kept');
      await screenshot(form, '12-form-changed-elsewhere');
      await banner.getByRole('button', { name: 'See theirs' }).click();
      assert.match(await banner.locator('table').innerText(), /Title\s+Quarterly plan \(final\)\s+Quarterly plan \(revised\)/);
      await screenshot(form, '13-form-conflict');
      await banner.getByRole('button', { name: 'Keep mine' }).click();
      await banner.waitFor({ state: 'detached' });
      assert.equal(await title.inputValue(), 'Quarterly plan (final)', 'their change to a field I did not touch is taken');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Saved', { exact: true }).waitFor();
      const stored = dataOf(await t.request({ method: 'GET', url: `/api/resource/${NOTE}/${noteName}` }));
      assert.deepEqual([stored.title, stored.amount], ['Quarterly plan (final)', 7]);
      // The writer's own save raised no banner on the writer's page.
      assert.equal(await writer.locator('[data-remote-banner]').count(), 0);
    } finally {
      await form.close();
      await context.close();
    }
  });

  test('a System Manager creates a user, gives roles, sets a password, issues keys and disables them', async () => {
    await admin.goto('/app/user/new');
    await admin.getByLabel(/^Email/).fill('new.person@example.com');
    await admin.getByLabel(/^First Name/).fill('New');
    await admin.getByLabel(/^Last Name/).fill('Person');
    await admin.getByRole('checkbox', { name: 'Note Writer', exact: true }).check();
    await admin.keyboard.press('Control+s');
    await urlMatches(admin, /\/app\/user\/new\.person@example\.com$/);
    await admin.getByRole('button', { name: 'Set password' }).click();
    await admin.getByRole('dialog').getByLabel('New password').fill('A-Long-Password-77');
    await admin.getByRole('dialog').getByRole('button', { name: 'Set password' }).click();
    await admin.getByText('Password changed').waitFor();
    await admin.getByRole('button', { name: 'Generate API keys' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Generate' }).click();
    const secret = await admin.locator('[data-api-secret]').innerText();
    const key = await admin.locator('[data-api-key]').innerText();
    await screenshot(admin, '14-user-keys');
    await admin.keyboard.press('Escape');
    // The keys work, and the secret was shown once: nothing of it stays in the page's storage.
    const me = await t.request({
      method: 'GET',
      url: '/api/method/frappe.auth.get_logged_user',
      anonymous: true,
      headers: { authorization: `token ${key}:${secret}` },
    });
    assert.equal(me.json().message, 'new.person@example.com');
    const stored = await admin.evaluate(() => JSON.stringify({ ...(globalThis as unknown as { localStorage: Record<string, string> }).localStorage }));
    assert.ok(!stored.includes(secret));
    const roles = (dataOf(await t.request({ method: 'GET', url: '/api/resource/User/new.person@example.com' })).roles as { role: string }[]).map((r) => r.role);
    assert.ok(roles.includes('Note Writer'));
    await admin.getByRole('button', { name: 'Disable user' }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await admin.getByRole('button', { name: 'Enable user' }).waitFor();
    assert.equal(dataOf(await t.request({ method: 'GET', url: '/api/resource/User/new.person@example.com' })).enabled, 0);
    await screenshot(admin, '15-user');
    assert.deepEqual(problems, []);
  });

  test('role permissions, System Settings and files are edited through their screens', async () => {
    await admin.goto('/app/role-permission-manager');
    await admin.getByLabel('DocType', { exact: true }).selectOption(NOTE);
    await admin.getByLabel('Rule 3 (Note Reader): export').waitFor();
    await admin.getByLabel('Rule 3 (Note Reader): write').check();
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByText('Permissions saved').waitFor();
    await screenshot(admin, '16-role-permissions');
    const perms = dataOf(await t.request({ method: 'GET', url: `/api/resource/DocType/${NOTE}` })).permissions as { role: string; write: number }[];
    assert.equal(perms.find((p) => p.role === 'Note Reader')?.write, 1);

    await admin.goto('/app/system-settings');
    await admin.getByRole('heading', { name: 'System Settings' }).waitFor();
    await admin.getByLabel(/Allow Consecutive Login Attempts/i).fill('7');
    await admin.keyboard.press('Control+s');
    await admin.getByText('Saved', { exact: true }).waitFor();
    await screenshot(admin, '17-system-settings');
    const settings = dataOf(await t.request({ method: 'GET', url: '/api/resource/System Settings/System Settings' }));
    assert.equal(settings.allow_consecutive_login_attempts, 7);

    await admin.goto(`/app/collab-note/${noteName}`);
    await admin.locator('input[type="file"]').setInputFiles({ name: 'plan.txt', mimeType: 'text/plain', buffer: Buffer.from('the plan') });
    await admin.getByText('Uploaded plan.txt').waitFor();
    await admin.keyboard.press('Control+s');
    await admin.getByText('Saved', { exact: true }).waitFor();
    const note = dataOf(await t.request({ method: 'GET', url: `/api/resource/${NOTE}/${noteName}` }));
    assert.match(String(note.attachment), /^\/files\/plan.*\.txt$/);
    await admin.goto('/app/file');
    await admin.locator('tr[data-file^="plan"]').waitFor();
    await screenshot(admin, '18-files');
    assert.deepEqual(problems, []);
  });

  test('a list of 500 rows renders, and the screens pass the accessibility scan', async () => {
    const docs = Array.from({ length: 500 }, (_, i) => ({ doctype: NOTE, title: `Bulk note ${i}`, amount: i }));
    for (let i = 0; i < docs.length; i += 200) {
      const res = await t.request({ method: 'POST', url: '/api/method/frappe.client.insert_many', body: { docs: docs.slice(i, i + 200) } });
      assert.equal(res.statusCode, 200, res.body);
    }
    await admin.goto('/app/collab-note');
    await admin.locator('tbody tr').nth(19).waitFor();
    const started = Date.now();
    await admin.getByLabel('Rows per page').selectOption('500');
    await admin.locator('tbody tr').nth(499).waitFor();
    // Reported, not asserted (no timed assertions in tests): docs/admin-ui.md records the figure.
    console.log(`# 500-row list: from choosing 500 rows to the last row drawn: ${Date.now() - started} ms`);
    await admin.getByLabel('Select all rows').check();
    await admin.getByText('500 selected').waitFor();
    await admin.getByLabel('Select all rows').uncheck();
    for (const url of ['/login', '/app/role-permission-manager', '/app/system-settings', '/app/user/new.person@example.com']) {
      const page = url === '/login' ? await browser.newPage({ baseURL: base }) : admin;
      await page.goto(url);
      await page.locator('h1').first().waitFor();
      await page.waitForLoadState('networkidle');
      const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], `${url}: ${JSON.stringify(serious)}`);
      if (page !== admin) await page.close();
    }
  });
});
