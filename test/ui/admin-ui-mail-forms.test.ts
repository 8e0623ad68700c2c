import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { siteJobUnits } from '../../src/site/site-jobs.js';
import { testDialects } from '../helpers/dialects.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot } from '../helpers/browser.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The mail forms of the admin UI explain their fields (docs/mail.md "In the admin UI"): Email
 * Account with "Send test mail", Email Queue with its status, error and Retry, Email Template and
 * Notification. Each form is checked with axe at a desktop and a phone size, with a screenshot.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI mail form browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

describe(`admin UI: mail forms (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let sink: SmtpSink;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  /** axe at both sizes (nothing at minor or above) and a screenshot of each. */
  async function checkScreens(name: string, ready: () => Promise<void>) {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await ready();
      assert.deepEqual(await axeViolations(page), [], `${name} at ${size.name}`);
      await screenshot(page, `mail-${name}-${size.name}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  /** The description shown under a field's control. */
  const described = (text: string | RegExp) => page.locator('.control-desc').filter({ hasText: text }).first();

  before(async () => {
    t = await startTestSite(dialect);
    sink = await new SmtpSink().start();
    await addSinkAccount(t, sink);
    const base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await sink?.stop();
    await t?.close();
  });

  test('Email Account explains its SMTP fields and sends a test mail, saying where it went', async () => {
    await page.goto('/app/email-account/Main');
    await described('Upgrade the connection with STARTTLS').waitFor();
    await described(/implicit TLS/).waitFor();
    await described('Stored encrypted').waitFor();
    await checkScreens('email-account', () => described('Upgrade the connection with STARTTLS').waitFor());
    const before = sink.received.length;
    await page.getByRole('button', { name: 'Send test mail' }).click();
    await page.getByLabel('Recipient').fill('tester@example.com');
    await page.getByRole('dialog').getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Sent through' }).waitFor();
    await checkScreens('email-account-test', () => page.getByRole('status').filter({ hasText: 'Sent through' }).waitFor());
    await page.getByRole('dialog').locator('button.btn', { hasText: 'Close' }).click();
    await sink.waitFor(before + 1);
    assert.ok(sink.received.slice(before).some((m) => m.to.includes('tester@example.com')));
    assert.deepEqual(problems, []);
  });

  test('a failed Email Queue row shows its status, the server’s reply and a Retry that queues it again', async () => {
    const dt = await t.request({
      method: 'POST',
      url: '/api/resource/DocType',
      body: {
        name: 'Mail Form Note',
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
        name: 'Mail form rule',
        document_type: 'Mail Form Note',
        event: 'New',
        channel: 'Email',
        subject: 'About {{ doc.title }}',
        message: '<p>{{ doc.title }}</p>',
        recipients: [{ receiver_by_document_field: 'watcher' }],
      },
    });
    assert.equal(rule.statusCode, 200, rule.body);
    sink.faults.refuse?.set('refused@example.com', 550);
    const note = await t.request({ method: 'POST', url: '/api/resource/Mail Form Note', body: { title: 'bounced', watcher: 'refused@example.com' } });
    assert.equal(note.statusCode, 200, note.body);
    await new JobWorker(t.site.jobs, { units: siteJobUnits(t.site) }).runDue();
    const rows = await t.request({ method: 'GET', url: `/api/resource/Email Queue?fields=["name","status"]&filters=[["subject","=","About bounced"]]` });
    const [row] = rows.json().data as { name: string; status: string }[];
    assert.equal(row?.status, 'Error', rows.body);

    await page.goto(`/app/email-queue/${row.name}`);
    await page.getByRole('group', { name: 'Email Queue actions' }).getByText('Error', { exact: true }).waitFor();
    await described(/temporary failures so far/).waitFor();
    await described(/last reply or the connection failure/).waitFor();
    const stored = (await t.request({ method: 'GET', url: `/api/resource/Email Queue/${row.name}` })).json().data;
    assert.match(String(stored.error), /550/, JSON.stringify(stored));
    const errorControl = page.getByLabel('Error', { exact: true }).first();
    await errorControl.waitFor();
    assert.match(await errorControl.inputValue(), /550/);
    await checkScreens('email-queue-error', () => page.getByRole('button', { name: 'Retry' }).waitFor());
    sink.faults.refuse?.delete('refused@example.com');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('The mail is queued again').waitFor();
    const after = await t.request({ method: 'GET', url: `/api/resource/Email Queue/${row.name}` });
    assert.equal(after.json().data.status, 'Not Sent');
    assert.deepEqual(problems, []);
  });

  test('Email Template and Notification forms explain the template language, events and recipients', async () => {
    await page.goto('/app/email-template/new');
    await described(/Liquid|{{ doc/).waitFor();
    await checkScreens('email-template', () => described(/{{ doc/).waitFor());
    await page.goto('/app/notification/Mail form rule');
    await described(/^New: inserted/).waitFor();
    await described('Off: the notification is kept but never fires.').waitFor();
    await described(/webhook condition language/).waitFor();
    await checkScreens('notification', () => described(/^New: inserted/).waitFor());
    assert.deepEqual(problems, []);
  });
});
