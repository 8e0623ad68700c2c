import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { OidcIdp } from '../helpers/oidc-idp.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, newContext, screenshot } from '../helpers/browser.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The login page's single sign-on buttons (docs/identity.md "Single sign-on"), in a real browser at
 * desktop and phone sizes, checked with axe; then a whole sign-in through a real OpenID Connect
 * provider (oidc-provider) back into the admin UI.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const CLIENT = { clientId: 'fw-ui-client', clientSecret: 'idp-ui-secret-0123456789abcdef' };

describe(`admin UI: single sign-on (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let base: string;
  let idp: OidcIdp;

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    idp = await OidcIdp.start({ ...CLIENT, redirectUris: [`${base}/api/method/fw.integrations.oauth2_logins.custom/company_sso`] });
    const key = await t.request({
      method: 'POST',
      url: '/api/resource/Social Login Key',
      body: {
        provider_name: 'Company SSO',
        social_login_provider: 'Keycloak',
        enable_social_login: 1,
        client_id: CLIENT.clientId,
        client_secret: CLIENT.clientSecret,
        base_url: idp.issuer,
      },
    });
    assert.equal(key.statusCode, 200, key.body);
    const user = await t.request({
      method: 'POST',
      url: '/api/resource/User',
      body: { email: 'staff@example.com', first_name: 'Staff', roles: [{ role: 'System Manager' }] },
    });
    assert.equal(user.statusCode, 200, user.body);
    await idp.setAccount('staff-sub', { email: 'staff@example.com', email_verified: true, given_name: 'Staff' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await idp?.stop();
    await t?.close();
  });

  for (const [label, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`the login page shows a button per enabled provider, accessibly (${label})`, async () => {
      const { context, page, problems } = await newContext(browser, base);
      try {
        await page.setViewportSize(viewport);
        await page.goto('/login');
        const button = page.getByRole('link', { name: 'Continue with Company SSO' });
        await button.waitFor();
        assert.match(String(await button.getAttribute('href')), /oauth2_logins\.start\/company_sso\?redirect_to=%2Fapp$/);
        await screenshot(page, `social-login-${label}`);
        const serious = (await axeViolations(page)).filter((v) => v.impact !== null);
        assert.deepEqual(serious, [], JSON.stringify(serious));
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  test('a click signs the user in through the provider and lands in the admin UI', async () => {
    const { context, page, problems } = await newContext(browser, base);
    page.setDefaultTimeout(20_000);
    try {
      await idp.loginNextAs('staff-sub');
      await page.goto('/login');
      await page.getByRole('link', { name: 'Continue with Company SSO' }).click();
      await page.waitForURL(/\/app$/);
      await page.getByRole('heading', { name: /^Welcome/ }).waitFor();
      await screenshot(page, 'social-login-signed-in');
      const cookies = await context.cookies(base);
      assert.equal(cookies.find((c) => c.name === 'user_id')?.value, encodeURIComponent('staff@example.com'));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
