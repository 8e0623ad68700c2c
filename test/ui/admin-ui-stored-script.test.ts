import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { dataOf, type Json } from '../helpers/document-api.js';
import { fileOf, signUp, uploadFile, type SignedInUser } from '../helpers/file-api.js';
import { browserSkipReason, launchBrowser, listen, login, newContext } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Issue 28, item 1, in a real browser (docs/security.md "Stored markup"): a System Manager uploads
 * a script, plants an `<iframe srcdoc>` loading it in an HTML Editor field, turns the field into a
 * Text Editor, and waits for the Administrator to open the form; the script would ask for new API
 * keys for the Administrator. Each layer is also tested on its own: markup written straight into
 * the database (the UI's sanitiser alone), and the iframe and a script element put into the page
 * directly (file serving and CSP alone). Every test asserts that no script ran, that nothing asked
 * for the script, and that the Administrator's API secret still works.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const MEMO = 'Planted Memo';
const SLUG = 'planted-memo';

// What the uploaded script does when it runs: marks the page (and the top page) and takes the keys.
const SCRIPT = `
document.documentElement.setAttribute('data-pwned', 'x-js');
try { top.document.documentElement.setAttribute('data-pwned', 'x-js'); } catch (e) {}
fetch('/api/method/frappe.auth.get_csrf_token').then((r) => r.json()).then((t) =>
  fetch('/api/method/fw.core.doctype.user.user.generate_keys', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Frappe-CSRF-Token': t.message || '' },
    body: JSON.stringify({ user: 'Administrator' }),
  }));
`;
const payload = (scriptUrl: string) =>
  `<p>Hello from the memo</p><iframe srcdoc="<script src='${scriptUrl}'></script>"></iframe>` +
  `<img src="/files/none.png" onerror="document.documentElement.setAttribute('data-pwned', 'onerror')">`;

describe(`admin UI: no stored script runs as the Administrator (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let base: string;
  let context: BrowserContext;
  let admin: Page;
  let problems: string[];
  let mallory: SignedInUser;
  let scriptUrl: string;
  let adminApiKey: unknown;
  const requested: string[] = [];

  const asMallory = (method: 'POST' | 'PUT', url: string, body: Json) => t.app.inject({ method, url, headers: mallory.headers, payload: body });

  /** Nothing the script would do happened: no mark, no request for it, the same API key and a working secret. */
  const assertNoScriptRan = async (page: Page) => {
    assert.equal(await page.locator('html').getAttribute('data-pwned'), null, 'no planted script ran');
    const asked = requested.filter((u) => new URL(u).pathname === scriptUrl || u.includes('generate_keys'));
    assert.deepEqual(asked, [], 'nothing asked for the script or for keys');
    const me = await t.request({ method: 'GET', url: '/api/method/fw.auth.get_logged_user' });
    assert.equal(me.json().message, 'Administrator', "the Administrator's API secret still works");
    const stored = dataOf(await t.request({ method: 'GET', url: '/api/resource/User/Administrator' }));
    assert.equal(stored.api_key, adminApiKey, "the Administrator's API key is the same");
  };

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    browser = await launchBrowser();
    ({ context, page: admin, problems } = await newContext(browser, base));
    admin.setDefaultTimeout(20_000);
    context.on('request', (req) => requested.push(req.url()));
    adminApiKey = dataOf(await t.request({ method: 'GET', url: '/api/resource/User/Administrator' })).api_key;

    // The attacker: a System Manager, not the Administrator.
    mallory = await signUp(t, 'mallory@example.com', ['System Manager']);
    scriptUrl = String(fileOf(await uploadFile(t, 'x.js', SCRIPT, {}, mallory)).file_url);
    assert.equal(scriptUrl, '/files/x.js');
    const defined = await asMallory('POST', '/api/resource/DocType', {
      name: MEMO,
      module: 'Team',
      fields: [{ fieldname: 'body', label: 'Body', fieldtype: 'HTML Editor' }],
      permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 }],
    });
    assert.equal(defined.statusCode, 200, defined.body);
    await login(admin, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test("the issue's attack: markup planted in an HTML Editor, the field made a Text Editor, the form opened by the Administrator", async () => {
    const memo = dataOf(await asMallory('POST', `/api/resource/${encodeURIComponent(MEMO)}`, { body: payload(scriptUrl) }));
    const retyped = await asMallory('PUT', `/api/resource/DocType/${encodeURIComponent(MEMO)}`, {
      fields: [{ fieldname: 'body', label: 'Body', fieldtype: 'Text Editor' }],
    });
    assert.equal(retyped.statusCode, 200, retyped.body);

    await admin.goto(`/app/${SLUG}/${memo.name}`);
    const body = admin.getByRole('textbox', { name: 'Body' });
    await body.filter({ hasText: 'Hello from the memo' }).waitFor();
    assert.equal(await admin.locator('iframe').count(), 0, 'no frame in the page');
    assert.equal(await admin.locator('[onerror]').count(), 0, 'no event handler in the page');
    await assertNoScriptRan(admin);
    assert.deepEqual(problems, []);
  });

  test("markup that reached the database past fw's sanitiser is sanitised by the UI before it is shown", async () => {
    const memo = dataOf(await t.request({ method: 'POST', url: `/api/resource/${encodeURIComponent(MEMO)}`, body: { body: '<p>placeholder</p>' } }));
    const b = t.site.db.dialect.builder;
    await t.site.db.transaction((q) =>
      q.run(
        b
          .updateTable(`tab${MEMO}`)
          .set({ body: payload(scriptUrl) })
          .where('name', '=', String(memo.name))
          .compile(),
      ),
    );
    assert.match(String(dataOf(await t.request({ method: 'GET', url: `/api/resource/${encodeURIComponent(MEMO)}/${memo.name}` })).body), /srcdoc/);

    await admin.goto(`/app/${SLUG}/${memo.name}`);
    await admin.getByRole('textbox', { name: 'Body' }).filter({ hasText: 'Hello from the memo' }).waitFor();
    assert.equal(await admin.locator('iframe').count(), 0, 'DOMPurify removed the frame');
    assert.equal(await admin.locator('[onerror]').count(), 0, 'DOMPurify removed the handler');
    await assertNoScriptRan(admin);
    // Chromium reports the planted handler as a CSP violation when DOMPurify parses the markup
    // (in a detached document, where nothing runs): a refusal, not a fault of the page.
    const handlerReports = problems.filter((p) => /^CSP: Executing inline event handler violates/.test(p));
    assert.deepEqual(
      problems.filter((p) => !handlerReports.includes(p)),
      [],
    );
    problems.length = 0;
  });

  test('an iframe srcdoc or a script element naming the upload, put into the page directly, runs nothing', async () => {
    await admin.goto('/app');
    await admin.getByRole('heading', { name: /^Welcome/ }).waitFor();
    // These run through the DevTools protocol, which the page's CSP does not govern; what they
    // insert is governed by it, as markup from the server would be.
    const frame = await admin.evaluate(async (src) => {
      const g = globalThis as unknown as { document: { createElement(n: string): any; body: { append(e: unknown): void } } };
      const iframe = g.document.createElement('iframe');
      iframe.setAttribute('srcdoc', `<p>inner</p><script src="${src}"></script>`);
      const loaded = new Promise<string>((resolve) => iframe.addEventListener('load', () => resolve('load')));
      g.document.body.append(iframe);
      return loaded;
    }, scriptUrl);
    assert.equal(frame, 'load', 'the frame finished loading, its script with it');
    const script = await admin.evaluate(async (src) => {
      const g = globalThis as unknown as { document: { createElement(n: string): any; body: { append(e: unknown): void } } };
      const element = g.document.createElement('script');
      element.src = src;
      const settled = new Promise<string>((resolve) => {
        element.addEventListener('load', () => resolve('load'));
        element.addEventListener('error', () => resolve('error'));
      });
      g.document.body.append(element);
      return settled;
    }, scriptUrl);
    assert.equal(script, 'error', 'the browser refused the upload as a script');
    assert.ok(
      requested.some((u) => new URL(u).pathname === scriptUrl),
      'the browser did ask for it (so the refusal is what stopped it)',
    );
    assert.equal(await admin.locator('html').getAttribute('data-pwned'), null, 'no planted script ran');
    const me = await t.request({ method: 'GET', url: '/api/method/fw.auth.get_logged_user' });
    assert.equal(me.json().message, 'Administrator');
    assert.equal(dataOf(await t.request({ method: 'GET', url: '/api/resource/User/Administrator' })).api_key, adminApiKey);
  });
});
