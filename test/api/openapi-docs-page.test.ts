import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { chromiumPath, launchBrowser, listen, newContext } from '../helpers/browser.js';
import { testDialects } from '../helpers/dialects.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

for (const dialect of testDialects()) {
  describe(`API reference page at /api/docs (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('the page loads only files of this origin, with a CSP that forbids inline and foreign scripts', async () => {
      const res = await t.request({ method: 'GET', url: '/api/docs', anonymous: true });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /connect-src 'self'/);
      assert.ok(!/https?:\/\//.test(res.body), 'no URL of another site: nothing from a CDN');
      const scripts = [...res.body.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
      assert.equal(scripts.length, 2);
      for (const [, attrs, inline] of scripts) {
        assert.match(attrs, /src="\/api\/docs\//);
        assert.equal(inline.trim(), '', 'no inline script');
      }
      const files = [...res.body.matchAll(/(?:src|href)="(\/api\/docs\/[^"]+)"/g)].map((m) => m[1]);
      assert.ok(files.length >= 3);
      for (const file of files) {
        const asset = await t.request({ method: 'GET', url: file, anonymous: true });
        assert.equal(asset.statusCode, 200, file);
        assert.ok(asset.rawPayload.length > 0, file);
      }
      const init = await t.request({ method: 'GET', url: '/api/docs/fw-docs.js', anonymous: true });
      assert.match(init.body, /url: '\/api\/openapi\.json'/);
      assert.match(init.body, /validatorUrl: null/);
    });

    test('the bundle is sent compressed to clients that take gzip, and revalidated by its ETag', async () => {
      const res = await t.request({ method: 'GET', url: '/api/docs/swagger-ui-bundle.js', anonymous: true, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.headers['content-encoding'], 'gzip');
      assert.match(gunzipSync(res.rawPayload).toString('utf8'), /SwaggerUIBundle/);
      const again = await t.request({
        method: 'GET',
        url: '/api/docs/swagger-ui-bundle.js',
        anonymous: true,
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
    });

    test('a file that is not part of the page is 404 in the JSON envelope, paths included', async () => {
      for (const url of ['/api/docs/package.json', '/api/docs/..%2Fpackage.json', '/api/docs/swagger-ui.js.map']) {
        const res = await t.request({ method: 'GET', url, anonymous: true });
        assert.equal(res.statusCode, 404, url);
        assert.equal(res.json().exc_type, 'DoesNotExistError');
      }
    });

    test('in a browser the page renders the operations of the signed-in user, without CSP violations', {
      skip: chromiumPath() ? false : 'no chromium found',
    }, async () => {
      const base = await listen(t);
      const browser = await launchBrowser();
      try {
        const { page, problems } = await newContext(browser, base);
        // Swagger UI takes tens of seconds to lay out the whole description (over 1 MB, every DocType
        // and method) on a loaded machine: wait for what is asserted rather than for a fixed time.
        page.setDefaultTimeout(120_000);
        const login = await page.request.post('/api/method/login', { data: { usr: 'Administrator', pwd: ADMIN_PASSWORD } });
        assert.equal(login.status(), 200);
        await page.goto('/api/docs');
        // The signed-in Administrator's description: every DocType has its tag and concrete paths.
        const tag = page.locator('.opblock-tag[data-tag="ToDo"]');
        await tag.waitFor();
        await tag.click();
        await page.locator('.opblock-summary-path[data-path="/api/resource/ToDo"]').first().waitFor();
        assert.ok((await page.locator('.opblock-tag').count()) > 10);
        // An opened operation shows its parameters and its response schemas.
        await page.locator('.opblock-summary-path[data-path="/api/resource/ToDo/{name}"]').first().click();
        await page.locator('.opblock-body .responses-table').first().waitFor();
        // "Try it out" writes with the session cookie: the page adds the session's CSRF token, which a
        // session that was issued one must send (docs/security.md "Sessions and CSRF").
        const outcome = await page.evaluate(async () => {
          const g = globalThis as unknown as {
            fwCsrfInterceptor(r: { method: string; url: string; headers: Record<string, string> }): Promise<{ headers: Record<string, string> }>;
            fetch: typeof fetch;
          };
          const request = await g.fwCsrfInterceptor({ method: 'POST', url: '/api/resource/ToDo', headers: { 'Content-Type': 'application/json' } });
          // No named helper functions here: the test's compiler would wrap them in a helper the page lacks.
          const statuses: number[] = [];
          for (const headers of [request.headers, { 'Content-Type': 'application/json' }]) {
            const res = await g.fetch('/api/resource/ToDo', { method: 'POST', headers, body: JSON.stringify({ description: 'from the docs page' }) });
            statuses.push(res.status);
          }
          return { token: request.headers['X-Frappe-CSRF-Token'], with: statuses[0], without: statuses[1] };
        });
        assert.match(String(outcome.token), /.{16,}/);
        assert.deepEqual([outcome.with, outcome.without], [200, 400]);
        assert.deepEqual(problems, []);
      } finally {
        await browser.close();
      }
    });
  });
}
