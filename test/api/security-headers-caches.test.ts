import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { assertError, dataOf, resourceUrl } from '../helpers/document-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, tokenFor, whoIs } from '../helpers/user-sessions.js';

/*
 * Issue 14, items 6 and 9 (docs/security.md): a rotated secret, a disabled user and a changed
 * password take effect at this process's very next request; every answer carries the security
 * headers.
 */

function assertSecurityHeaders(res: LightMyRequestResponse, what: string): void {
  assert.equal(res.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(res.headers['referrer-policy'], 'same-origin', what);
  assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN', what);
  assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'self'/, what);
}

for (const dialect of testDialects()) {
  describe(`secrets and users change at the next request; security headers (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('a rotated API secret is refused at the very next request, though it was verified (and cached) just before', async () => {
      await createUser(t, { email: 'rotate@example.com', password: 'Rotate-Secret-42' });
      const old = await tokenFor(t, 'rotate@example.com');
      assert.equal(await whoIs(t.app, { authorization: old }), 'rotate@example.com');
      const fresh = await tokenFor(t, 'rotate@example.com');
      assert.equal(await whoIs(t.app, { authorization: old }), undefined);
      assertError(await t.app.inject({ method: 'GET', url: resourceUrl('ToDo'), headers: { authorization: old } }), 401, 'AuthenticationError');
      assert.equal(await whoIs(t.app, { authorization: fresh }), 'rotate@example.com');
    });

    test("a disabled user's key is refused at the very next request; enabling restores it", async () => {
      await createUser(t, { email: 'disable@example.com', password: 'Disable-Secret-42' });
      const token = await tokenFor(t, 'disable@example.com');
      assert.equal(await whoIs(t.app, { authorization: token }), 'disable@example.com');
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', 'disable@example.com'), body: { enabled: 0 } }));
      assertError(await t.app.inject({ method: 'GET', url: resourceUrl('ToDo'), headers: { authorization: token } }), 401, 'AuthenticationError');
      dataOf(await t.request({ method: 'PUT', url: resourceUrl('User', 'disable@example.com'), body: { enabled: 1 } }));
      assert.equal(await whoIs(t.app, { authorization: token }), 'disable@example.com');
    });

    test('every answer carries nosniff, Referrer-Policy and frame protection: data, errors, preflights, unknown routes', async () => {
      const answers: Array<[string, LightMyRequestResponse]> = [
        ['ping', await t.app.inject({ method: 'GET', url: '/api/method/ping' })],
        ['list', await t.request({ method: 'GET', url: resourceUrl('ToDo') })],
        ['403', await t.app.inject({ method: 'GET', url: resourceUrl('User') })],
        ['404', await t.app.inject({ method: 'GET', url: '/no/such/route' })],
        ['bad body', await t.request({ method: 'POST', url: resourceUrl('ToDo'), body: '{', headers: { 'content-type': 'application/json' } })],
        [
          'preflight',
          await t.app.inject({
            method: 'OPTIONS',
            url: resourceUrl('ToDo'),
            headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' },
          }),
        ],
        ['bad escape', await t.app.inject({ method: 'GET', url: '/api/resource/%E0%A4%A' })],
      ];
      for (const [what, res] of answers) assertSecurityHeaders(res, what);
    });
  });
}
