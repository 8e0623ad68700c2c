import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { addSinkAccount } from '../helpers/mail-account.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { codeAt, setSystemSettings, twoFactorRole } from '../helpers/two-factor.js';

/*
 * Two-factor login in the admin UI (docs/identity.md "For users"): setting up an authenticator on
 * /app/two-factor (QR code and secret, recovery codes shown once), the login page's second step, and
 * the /qrcode page a first login mails, at desktop and phone sizes, with axe-core finding nothing.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const SIZES = [
  { label: 'desktop', width: 1440, height: 900 },
  { label: 'phone', width: 390, height: 844 },
] as const;

async function assertAccessible(page: Page): Promise<void> {
  assert.deepEqual(await axeViolations(page), []);
}

describe(`admin UI: two-factor login (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let sink: SmtpSink;
  let browser: Browser;
  let base: string;

  before(async () => {
    t = await startTestSite(dialect);
    sink = await new SmtpSink().start();
    await addSinkAccount(t, sink);
    await setSystemSettings(t, { enable_two_factor_auth: 1, otp_issuer_name: 'Acme' });
    await twoFactorRole(t, 'Auditor');
    base = await listen(t);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await sink?.stop();
    await t?.close();
  });

  for (const size of SIZES) {
    test(`${size.label}: set up an authenticator, see the recovery codes once, then sign in with the second step`, async () => {
      const email = `setup-${size.label}@example.com`;
      await createUser(t, email);
      const { page, problems, context } = await newContext(browser, base);
      await page.setViewportSize({ width: size.width, height: size.height });
      page.setDefaultTimeout(30_000);
      await login(page, email, USER_PASSWORD);
      await page.goto('/app/two-factor');
      await page.getByRole('button', { name: 'Set up' }).click();
      await page.getByRole('img', { name: 'QR code of the authenticator secret' }).waitFor();
      const secret = (await page.locator('[data-secret]').textContent())!.trim();
      assert.match(secret, /^[A-Z2-7]{32}$/);
      await assertAccessible(page);
      await screenshot(page, `two-factor-setup-${size.label}`);
      await page.getByLabel('Code from the app').fill(codeAt(secret, Date.now()));
      await page.getByRole('button', { name: 'Turn on' }).click();
      const codes = page.locator('[data-recovery-codes] code');
      await codes.first().waitFor();
      const recovery = await codes.allTextContents();
      assert.equal(recovery.length, 10);
      await page.getByText('Recovery codes left: 10').waitFor();
      await assertAccessible(page);
      await screenshot(page, `two-factor-recovery-codes-${size.label}`);
      await page.reload();
      await page.getByText('Recovery codes left: 10').waitFor();
      assert.equal(await codes.count(), 0, 'recovery codes are shown once');
      await context.close();

      // A new browser: the password, then the second step.
      const second = await newContext(browser, base);
      await second.page.setViewportSize({ width: size.width, height: size.height });
      second.page.setDefaultTimeout(30_000);
      await second.page.goto('/login');
      await second.page.getByLabel('Email or user name').fill(email);
      await second.page.getByLabel('Password').fill(USER_PASSWORD);
      await second.page.getByRole('button', { name: 'Sign in' }).click();
      await second.page.getByRole('heading', { name: 'Two-factor login' }).waitFor();
      await second.page.getByLabel('Code from your authenticator app').fill('000000');
      await second.page.getByRole('button', { name: 'Verify' }).click();
      await second.page.getByRole('alert').filter({ hasText: 'Incorrect Verification code' }).waitFor();
      await assertAccessible(second.page);
      await screenshot(second.page, `two-factor-login-step-${size.label}`);
      // The confirming code's step is spent; a recovery code signs in at once.
      await second.page.getByLabel('Code from your authenticator app').fill(recovery[0]!);
      await second.page.getByRole('button', { name: 'Verify' }).click();
      await urlMatches(second.page, /\/app$/);
      await second.page.getByRole('heading', { name: /^Welcome/ }).waitFor();
      assert.deepEqual([...problems, ...second.problems], []);
      await second.context.close();
    });
  }

  test('a first login mails a QR link; its page shows the secret; the code finishes the sign-in', async () => {
    await createUser(t, 'first@example.com', { roles: ['Auditor'] });
    for (const size of SIZES) {
      const { page, problems, context } = await newContext(browser, base);
      await page.setViewportSize({ width: size.width, height: size.height });
      page.setDefaultTimeout(30_000);
      const before = sink.received.length;
      await page.goto('/login');
      await page.getByLabel('Email or user name').fill('first@example.com');
      await page.getByLabel('Password').fill(USER_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('status').filter({ hasText: 'Please check your registered email address' }).waitFor();
      await new JobWorker(t.site.jobs).runDue();
      await sink.waitFor(before + 1);
      const key = /\/qrcode\?k=([A-Za-z0-9_-]+)/.exec(String(sink.received.at(-1)!.parsed.html))![1];
      const qrPage = await context.newPage();
      await qrPage.setViewportSize({ width: size.width, height: size.height });
      await qrPage.goto(`/qrcode?k=${key}`);
      await qrPage.getByRole('img', { name: 'QR code for first@example.com at Acme' }).waitFor();
      const secret = (await qrPage.locator('[data-secret]').textContent())!.trim();
      await assertAccessible(qrPage);
      await screenshot(qrPage, `two-factor-qrcode-page-${size.label}`);
      if (size.label === 'desktop') {
        // The desktop run signs in; the phone run (the secret then confirmed) only looks at the page.
        await page.getByLabel('Verification code').fill(codeAt(secret, Date.now()));
        await page.getByRole('button', { name: 'Verify' }).click();
        await urlMatches(page, /\/app$/);
        await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
        const reset = await t.request({ method: 'POST', url: '/api/method/fw.twofactor.reset_otp_secret', body: { user: 'first@example.com' } });
        assert.equal(reset.statusCode, 200, reset.body);
      }
      assert.deepEqual(problems, []);
      await context.close();
    }
  });
});
