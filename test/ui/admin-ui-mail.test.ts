import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, urlMatches } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';

/*
 * The admin UI's mail features (docs/mail.md): "Forgot password?" on the login form, the mail, and
 * the /update-password page that signs the user in; the new-User form's welcome mail default; the
 * notification bell.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];

describe(`admin UI: mail (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let sink: SmtpSink;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let base: string;

  before(async () => {
    t = await startTestSite(dialect);
    sink = await new SmtpSink().start();
    await addSinkAccount(t, sink);
    await createUser(t, 'dora@example.com', { roles: ['System Manager'] });
    base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
  });

  after(async () => {
    await browser?.close();
    await sink?.stop();
    await t?.close();
  });

  test('Forgot password? mails a link; the page it opens sets the password and signs in', async () => {
    await page.goto('/login');
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email address').fill('dora@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').filter({ hasText: 'If an account with this email exists' }).waitFor();
    await new JobWorker(t.site.jobs).runDue();
    await sink.waitFor(1);
    const link = /https?:\/\/[^\s]+\/update-password\?key=([A-Za-z0-9_-]+)/.exec(String(sink.received[0]!.parsed.text))!;
    await page.goto(`/update-password?key=${link[1]}`);
    await page.getByLabel('New password').fill('Fresh-Browser-Secret-61');
    await page.getByLabel('Repeat it').fill('Fresh-Browser-Secret-61');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await urlMatches(page, /\/app$/);
    await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
    // The same link a second time, from another browser: the page says why.
    const other = await newContext(browser, base);
    other.page.setDefaultTimeout(20_000);
    await other.page.goto(`/update-password?key=${link[1]}`);
    await other.page.getByLabel('New password').fill('Other-Browser-Secret-62');
    await other.page.getByLabel('Repeat it').fill('Other-Browser-Secret-62');
    await other.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await other.page.getByRole('alert').filter({ hasText: 'used before or is invalid' }).waitFor();
    await other.context.close();
    assert.deepEqual([...problems, ...other.problems], []);
  });

  test('a User made in the admin UI gets the welcome mail by default; one made through the API does not', async () => {
    const admin = await newContext(browser, base);
    admin.page.setDefaultTimeout(20_000);
    try {
      await login(admin.page, 'Administrator', ADMIN_PASSWORD);
      await admin.page.goto('/app/user/new');
      const welcome = admin.page.getByLabel('Send Welcome Email');
      await welcome.waitFor();
      assert.equal(await welcome.isChecked(), true);
      await admin.page.getByLabel(/^Email/).fill('newbie@example.com');
      await admin.page.getByLabel(/^First Name/).fill('Newbie');
      await admin.page.keyboard.press('Control+s');
      await urlMatches(admin.page, /\/app\/user\/newbie@example\.com$/);
      const scripted = await t.request({ method: 'POST', url: '/api/resource/User', body: { email: 'scripted@example.com', first_name: 'Scripted' } });
      assert.equal(scripted.statusCode, 200, scripted.body);
      assert.equal(scripted.json().data.send_welcome_email, 0);
      const sent = sink.received.length;
      await new JobWorker(t.site.jobs).runDue();
      await sink.waitFor(sent + 1);
      const welcomes = sink.received.slice(sent).map((m) => [m.to.join(','), String(m.parsed.subject)]);
      assert.equal(welcomes.length, 1, JSON.stringify(welcomes));
      assert.equal(welcomes[0]![0], 'newbie@example.com');
      assert.match(welcomes[0]![1], /^Welcome/);
      assert.deepEqual(admin.problems, []);
    } finally {
      await admin.context.close();
    }
  });

  test('the bell shows the unread Notification Logs live, opens the document and marks it read', async () => {
    const dt = await t.request({
      method: 'POST',
      url: '/api/resource/DocType',
      body: {
        name: 'Bell Note',
        fields: [
          { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
          { fieldname: 'watcher', label: 'Watcher', fieldtype: 'Data' },
        ],
        permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
      },
    });
    assert.equal(dt.statusCode, 200, dt.body);
    const rule = await t.request({
      method: 'POST',
      url: '/api/resource/Notification',
      body: {
        name: 'Bell',
        document_type: 'Bell Note',
        event: 'New',
        channel: 'System Notification',
        subject: 'Look at {{ doc.title }}',
        recipients: [{ receiver_by_document_field: 'watcher' }],
      },
    });
    assert.equal(rule.statusCode, 200, rule.body);
    await createUser(t, 'bella@example.com', { roles: ['System Manager'] });
    const bella = await newContext(browser, base);
    bella.page.setDefaultTimeout(20_000);
    try {
      await login(bella.page, 'bella@example.com', USER_PASSWORD);
      await bella.page.locator('html[data-realtime-connected="1"]').waitFor({ state: 'attached' });
      await bella.page.locator('.bell-button[data-loaded="1"]').waitFor();
      await bella.page.getByRole('button', { name: 'Notifications, 0 unread' }).waitFor();
      const made = await t.request({ method: 'POST', url: '/api/resource/Bell Note', body: { title: 'the budget', watcher: 'bella@example.com' } });
      assert.equal(made.statusCode, 200, made.body);
      await t.request({ method: 'POST', url: '/api/resource/Bell Note', body: { title: 'not hers', watcher: 'dora@example.com' } });
      // Live: no reload between the write and the count.
      await bella.page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
      await bella.page.getByRole('menu', { name: 'Notifications' }).waitFor();
      const serious = (await axeViolations(bella.page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(serious, [], JSON.stringify(serious));
      assert.equal(await bella.page.getByRole('menuitem', { name: /not hers/ }).count(), 0);
      await bella.page.getByRole('menuitem', { name: /Look at the budget/ }).click();
      await urlMatches(bella.page, new RegExp(`/app/bell-note/${made.json().data.name}$`));
      await bella.page.getByRole('button', { name: 'Notifications, 0 unread' }).waitFor();
      assert.deepEqual(bella.problems, []);
    } finally {
      await bella.context.close();
    }
  });
});
