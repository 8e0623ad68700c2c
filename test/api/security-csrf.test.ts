import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { assertError, createDocType, dataOf, resourceUrl, storedCount } from '../helpers/document-api.js';
import { createRole, createUser, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { login, sessionFor, whoIs } from '../helpers/user-sessions.js';

/*
 * Issue 14, item 3 (docs/security.md, "Sessions and CSRF"): a write that only the session cookie
 * authenticates is refused (400 CSRFTokenError, nothing changed) when a browser sent it for
 * another site; a session that was issued a CSRF token must send it back.
 */

const NOTE = 'Csrf Note';
const ROLE = 'Csrf Writer';
const HOST = 'fw.example';
const EVIL = 'https://evil.example';

for (const dialect of testDialects()) {
  describe(`CSRF defence for cookie sessions (${dialect.name})`, () => {
    let t: TestSite;
    let user: ActingUser;
    let sid: string;

    /** A request as the user's browser session would send it, to the site at HOST. */
    const asSession = (
      method: 'POST' | 'PUT' | 'DELETE' | 'GET',
      url: string,
      options: { headers?: Record<string, string>; body?: string | object; session?: string; app?: TestSite['app'] } = {},
    ): Promise<LightMyRequestResponse> =>
      (options.app ?? t.app).inject({
        method,
        url,
        headers: { host: HOST, cookie: `sid=${options.session ?? sid}`, ...options.headers },
        ...(options.body !== undefined ? { payload: options.body } : {}),
      });
    const insert = (headers: Record<string, string>, options: { session?: string; app?: TestSite['app'] } = {}) =>
      asSession('POST', resourceUrl(NOTE), { headers, body: { title: 'from a page' }, ...options });
    const refusedAndUnchanged = async (res: LightMyRequestResponse, count: number) => {
      assertError(res, 400, 'CSRFTokenError');
      assert.equal(await storedCount(t, NOTE), count, 'nothing was written');
    };

    before(async () => {
      t = await startTestSite(dialect);
      await createRole(t, ROLE);
      await createDocType(t, {
        name: NOTE,
        fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data' }],
        permissions: [{ role: 'System Manager' }, { role: ROLE, read: 1, write: 1, create: 1, delete: 1 }],
      });
      user = await createUser(t, 'csrf-user@example.com', { roles: [ROLE] });
      sid = await sessionFor(t.app, user.name, USER_PASSWORD);
    });
    after(() => t.close());

    test("writes from another origin, an opaque origin, another site's Referer or a cross-site fetch are refused", async () => {
      const count = await storedCount(t, NOTE);
      for (const headers of <Record<string, string>[]>[
        { origin: EVIL },
        { origin: 'null' },
        { origin: `http://sub.${HOST}` },
        { origin: `https://${HOST}:8443` },
        { referer: `${EVIL}/page.html` },
        { 'sec-fetch-site': 'cross-site' },
      ]) {
        await refusedAndUnchanged(await insert(headers), count);
      }
    });

    test('form-encoded and text/plain writes, cmd at /, PUT and DELETE are refused alike', async () => {
      const doc = dataOf(await insert({}));
      const count = await storedCount(t, NOTE);
      const form = { 'content-type': 'application/x-www-form-urlencoded', origin: EVIL };
      const encoded = `doc=${encodeURIComponent(JSON.stringify({ doctype: NOTE, title: 'forged' }))}`;
      await refusedAndUnchanged(await asSession('POST', '/api/method/frappe.client.insert', { headers: form, body: encoded }), count);
      await refusedAndUnchanged(await asSession('POST', '/', { headers: form, body: `cmd=frappe.client.insert&${encoded}` }), count);
      await refusedAndUnchanged(
        await asSession('POST', resourceUrl(NOTE), { headers: { 'content-type': 'text/plain', origin: EVIL }, body: '{"title":"x"}' }),
        count,
      );
      await refusedAndUnchanged(await asSession('PUT', resourceUrl(NOTE, doc.name), { headers: { origin: EVIL }, body: { title: 'changed' } }), count);
      await refusedAndUnchanged(await asSession('DELETE', resourceUrl(NOTE, doc.name), { headers: { origin: 'null' } }), count);
      assert.equal(dataOf(await t.request({ method: 'GET', url: resourceUrl(NOTE, doc.name) })).title, 'from a page');
      // A forged logout does not end the session either.
      assertError(await asSession('POST', '/api/method/logout', { headers: { 'content-type': 'text/plain', origin: EVIL }, body: '' }), 400, 'CSRFTokenError');
      assert.equal(await whoIs(t.app, { cookie: `sid=${sid}` }), user.name);
    });

    test("clients without Origin (curl), the site's own pages and token requests from anywhere write as before; reads are never checked", async () => {
      assert.equal((await insert({})).statusCode, 200);
      assert.equal((await insert({ origin: `https://${HOST}` })).statusCode, 200);
      assert.equal((await insert({ referer: `http://${HOST}/app/csrf-note` })).statusCode, 200);
      assert.equal((await insert({ 'sec-fetch-site': 'same-origin' })).statusCode, 200);
      const token = await t.app.inject({
        method: 'POST',
        url: resourceUrl(NOTE),
        headers: { authorization: user.auth, origin: EVIL },
        payload: { title: 'by key' },
      });
      assert.equal(token.statusCode, 200, token.body);
      assert.equal((await asSession('GET', resourceUrl(NOTE), { headers: { origin: EVIL } })).statusCode, 200);
    });

    test('an origin allow_cors lists may write with the session; "*" lists none', async () => {
      const listed = await reopenWithConfig(t, { allow_cors: ['https://partner.example'] });
      const any = await reopenWithConfig(t, { allow_cors: '*' });
      try {
        assert.equal((await insert({ origin: 'https://partner.example' }, { app: listed.app })).statusCode, 200);
        const count = await storedCount(t, NOTE);
        await refusedAndUnchanged(await insert({ origin: EVIL }, { app: listed.app }), count);
        await refusedAndUnchanged(await insert({ origin: EVIL }, { app: any.app }), count);
        await refusedAndUnchanged(await insert({ origin: 'null' }, { app: any.app }), count);
      } finally {
        await listed.close();
        await any.close();
      }
    });

    test('X-Frappe-CSRF-Token must match: a wrong one is refused, and once a page was issued a token it is required', async () => {
      const session = await sessionFor(t.app, user.name, USER_PASSWORD);
      const count = await storedCount(t, NOTE);
      await refusedAndUnchanged(await insert({ 'x-frappe-csrf-token': 'guessed' }, { session }), count);
      const issued = await asSession('GET', '/api/method/fw.auth.get_csrf_token', { session });
      const csrf = String(issued.json().message);
      assert.match(csrf, /^[0-9a-f]{64}$/);
      assert.equal((await asSession('GET', '/api/method/frappe.auth.get_csrf_token', { session })).json().message, csrf, 'one token per session');
      await refusedAndUnchanged(await insert({}, { session }), count);
      await refusedAndUnchanged(await insert({ 'x-frappe-csrf-token': csrf.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }, { session }), count);
      assert.equal((await insert({ 'x-frappe-csrf-token': csrf }, { session })).statusCode, 200);
      // Another session of the same user was issued no token: its token is not this one.
      await refusedAndUnchanged(await insert({ 'x-frappe-csrf-token': csrf }), count + 1);
      // Requests by key need no token: there is none.
      const byKey = await t.app.inject({ method: 'GET', url: '/api/method/fw.auth.get_csrf_token', headers: { authorization: user.auth } });
      assert.deepEqual(byKey.json(), {});
    });

    test("changing one's own password from a session needs the current one; a System Manager sets another user's without it", async () => {
      const own = await sessionFor(t.app, user.name, USER_PASSWORD);
      const put = (body: object, session = own) => asSession('PUT', resourceUrl('User', user.name), { session, body });
      assertError(await put({ new_password: 'Taken-Over-42' }), 417, 'MandatoryError');
      assertError(await put({ new_password: 'Taken-Over-42', old_password: 'wrong-guess' }), 401, 'AuthenticationError');
      assert.equal((await login(t.app, user.name, 'Taken-Over-42')).statusCode, 401);
      assert.equal(await whoIs(t.app, { cookie: `sid=${own}` }), user.name, 'the session lives on');
      const changed = await put({ new_password: 'Changed-Own-42', old_password: USER_PASSWORD });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.notEqual(changed.json().data.old_password, USER_PASSWORD, 'the current password is never echoed');
      assert.equal((await login(t.app, user.name, 'Changed-Own-42')).statusCode, 200);

      await createUser(t, 'csrf-manager@example.com', { roles: ['System Manager'] });
      const manager = await sessionFor(t.app, 'csrf-manager@example.com', USER_PASSWORD);
      const reset = await put({ new_password: 'Reset-By-Manager-42' }, manager);
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal((await login(t.app, user.name, 'Reset-By-Manager-42')).statusCode, 200);
    });
  });
}
