import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, resourceUrl } from '../helpers/document-api.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { createUser, login, sessionFor, whoIs } from '../helpers/user-sessions.js';

/*
 * docs/api.md "Authentication": a `sid` request parameter (query string, form or JSON body)
 * authenticates as the cookie does and wins over it, as in the reference; such a request needs no
 * CSRF token, since no browser adds it by itself. A login call without credentials is a 401 that
 * leaves the session it came with alone.
 */

const NOTE = 'Sid Note';
const EMAIL = 'sid-user@example.com';
const PASSWORD = 'Sid-User-Secret-42';

for (const dialect of testDialects()) {
  describe(`sid parameter and empty login (${dialect.name})`, () => {
    let t: TestSite;
    let sid: string;
    const loggedUser = (url: string, init: { cookie?: string; body?: string; type?: string; method?: 'GET' | 'POST' } = {}) =>
      t.app.inject({
        method: init.method ?? 'GET',
        url,
        headers: { ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.type ? { 'content-type': init.type } : {}) },
        ...(init.body !== undefined ? { payload: init.body } : {}),
      });

    before(async () => {
      t = await startTestSite(dialect);
      await createDocType(t, {
        name: NOTE,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: 'All' }],
      });
      await createUser(t, { email: EMAIL, password: PASSWORD });
      sid = await sessionFor(t.app, EMAIL, PASSWORD);
    });
    after(() => t.close());

    test('sid in the query string, a form body or a JSON body authenticates', async () => {
      const q = await loggedUser(`/api/method/frappe.auth.get_logged_user?sid=${sid}`);
      assert.equal(q.json().message, EMAIL);
      const form = await loggedUser('/api/method/frappe.auth.get_logged_user', {
        method: 'POST',
        type: 'application/x-www-form-urlencoded',
        body: `sid=${sid}`,
      });
      assert.equal(form.json().message, EMAIL);
      const json = await loggedUser('/api/method/frappe.auth.get_logged_user', { method: 'POST', type: 'application/json', body: JSON.stringify({ sid }) });
      assert.equal(json.json().message, EMAIL);
      const v2 = await loggedUser(`/api/v2/method/frappe.auth.get_logged_user?sid=${sid}`);
      assert.equal(v2.json().data, EMAIL);
    });

    test('an unknown sid parameter is Guest, even beside a live cookie; the parameter is not a document field', async () => {
      const res = await loggedUser('/api/method/frappe.auth.get_logged_user?sid=not-a-session', { cookie: `sid=${sid}` });
      assertError(res, 403, 'PermissionError');
      const guestRead = await loggedUser(`${resourceUrl(NOTE)}?sid=nope`);
      assertError(guestRead, 403, 'PermissionError');
      const insert = await loggedUser(resourceUrl(NOTE), { method: 'POST', type: 'application/json', body: JSON.stringify({ sid, title: 'by param' }) });
      assert.equal(insert.statusCode, 200, insert.body);
      assert.equal(insert.json().data.owner, EMAIL);
      assert.equal('sid' in insert.json().data, false);
    });

    test('a write with the sid as a parameter needs no CSRF token; the cookie still does once one was issued', async () => {
      const issued = await loggedUser('/api/method/frappe.auth.get_csrf_token', { cookie: `sid=${sid}` });
      assert.match(String(issued.json().message), /^[0-9a-f]{64}$/);
      const byCookie = await loggedUser(resourceUrl(NOTE), {
        method: 'POST',
        type: 'application/json',
        cookie: `sid=${sid}`,
        body: JSON.stringify({ title: 'c' }),
      });
      assertError(byCookie, 400, 'CSRFTokenError');
      const byParam = await loggedUser(`${resourceUrl(NOTE)}?sid=${sid}`, { method: 'POST', type: 'application/json', body: JSON.stringify({ title: 'p' }) });
      assert.equal(byParam.statusCode, 200, byParam.body);
    });

    test('login without credentials is a 401 that leaves the session and its cookie alone', async () => {
      const own = await sessionFor(t.app, EMAIL, PASSWORD);
      for (const payload of [{}, { usr: EMAIL }, { pwd: PASSWORD }]) {
        const res = await t.app.inject({ method: 'POST', url: '/api/method/login', payload, headers: { cookie: `sid=${own}` } });
        assertError(res, 401, 'AuthenticationError');
        assert.equal(
          res.cookies.some((c) => c.name === 'sid'),
          false,
          'no sid cookie set or expired',
        );
        assert.equal(await whoIs(t.app, { cookie: `sid=${own}` }), EMAIL);
      }
      // A wrong password still ends the browser's cookies, as before.
      const wrong = await login(t.app, EMAIL, 'wrong-password', { headers: { cookie: `sid=${own}` } });
      assertError(wrong, 401, 'AuthenticationError');
      assert.ok(wrong.cookies.some((c) => c.name === 'sid' && (c.value === '' || c.value === 'Guest')));
    });
  });
}
