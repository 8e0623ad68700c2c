import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import * as oidc from 'openid-client';
import { testDialects } from '../helpers/dialects.js';
import { createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot } from '../helpers/browser.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The admin UI's part of fw's OAuth provider (docs/identity.md "fw as an OAuth2 / OpenID Connect
 * provider"): the consent page an application sends the user to, and the page of connected apps.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const CALLBACK = 'https://rp.example/callback';

const VIEWPORTS = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe(`admin UI: OAuth consent and connected apps (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let base: string;
  let clientId: string;

  before(async () => {
    t = await startTestSite(dialect);
    await createUser(t, 'nora@example.com', { roles: [] });
    base = await listen(t);
    const res = await t.request({
      method: 'POST',
      url: '/api/resource/OAuth Client',
      body: { app_name: 'Photo Printer', redirect_uris: CALLBACK, default_redirect_uri: CALLBACK, scopes: 'all openid', token_endpoint_auth_method: 'None' },
    });
    assert.equal(res.statusCode, 200, res.body);
    clientId = String(res.json().data.name);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The authorization URL of a PKCE request, as a relying party builds it. */
  const verifiers = new Map<string, string>();
  async function authorizationUrl(state: string): Promise<string> {
    const verifier = oidc.randomPKCECodeVerifier();
    verifiers.set(state, verifier);
    const query = new URLSearchParams({
      client_id: clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'all openid',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return `/api/method/frappe.integrations.oauth2.authorize?${query}`;
  }

  /** The relying party's side: the code exchanged for tokens, as the public client does. */
  async function exchange(back: URL): Promise<void> {
    const res = await fetch(`${base}/api/method/frappe.integrations.oauth2.get_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: verifiers.get(back.searchParams.get('state') ?? '') ?? '',
      }).toString(),
    });
    assert.equal(res.status, 200, await res.text());
  }

  /** Follows the browser until it leaves for the relying party; answers that URL (the request is not sent). */
  async function leavesFor(page: Page, act: () => Promise<unknown>): Promise<URL> {
    const left = new Promise<URL>((resolve) => {
      void page.route('https://rp.example/**', async (route) => {
        resolve(new URL(route.request().url()));
        await route.fulfill({ status: 200, contentType: 'text/plain', body: 'relying party' });
      });
    });
    await act();
    const url = await left;
    // The relying party's page itself, so no navigation is still under way.
    await page.getByText('relying party').waitFor();
    return url;
  }

  for (const viewport of VIEWPORTS) {
    test(`a Guest signs in, sees what the application asks, allows it, and can revoke it (${viewport.name})`, async () => {
      const { context, page, problems } = await newContext(browser, base);
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      page.setDefaultTimeout(20_000);
      try {
        await page.goto(await authorizationUrl('s-allow'));
        // Sent to log in, then back to the consent page.
        await page.waitForURL(/\/login\?redirect=/);
        await page.getByLabel('Email or user name').fill('nora@example.com');
        await page.getByLabel('Password').fill(USER_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Allow Photo Printer?' }).waitFor();
        await page.getByText('Act as you in this site').waitFor();
        await page.getByText('rp.example', { exact: true }).waitFor();
        await screenshot(page, `oauth-consent-${viewport.name}`);
        assert.deepEqual(await axeViolations(page), []);
        const back = await leavesFor(page, () => page.getByRole('button', { name: 'Allow' }).click());
        assert.equal(back.searchParams.get('state'), 's-allow');
        assert.ok(back.searchParams.get('code'));
        await exchange(back);

        await page.goto('/app/oauth/authorized-apps');
        await page.getByRole('heading', { name: 'Photo Printer' }).waitFor();
        await screenshot(page, `oauth-connected-apps-${viewport.name}`);
        assert.deepEqual(await axeViolations(page), []);
        await page.getByRole('button', { name: 'Revoke Photo Printer' }).click();
        await page.getByText('No application holds access to your account.').waitFor();
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  test('Deny sends access_denied back to the application', async () => {
    const { context, page, problems } = await newContext(browser, base);
    page.setDefaultTimeout(20_000);
    try {
      await login(page, 'nora@example.com', USER_PASSWORD);
      await page.goto(await authorizationUrl('s-deny'));
      await page.getByRole('heading', { name: 'Allow Photo Printer?' }).waitFor();
      const back = await leavesFor(page, () => page.getByRole('button', { name: 'Deny' }).click());
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), 's-deny');
      assert.equal(back.searchParams.get('code'), null);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
