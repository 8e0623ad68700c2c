import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { SESSIONS_TABLE } from '../../src/auth/auth-tables.js';
import { testDialects } from '../helpers/dialects.js';
import { assertError } from '../helpers/document-api.js';
import { assertV2Error } from '../helpers/error-envelope.js';
import { createUser, USER_PASSWORD, type ActingUser } from '../helpers/permission-users.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';
import { freshIp, sidOf, whoIs } from '../helpers/user-sessions.js';

/*
 * Issue 28, item 7 (docs/security.md, "Sessions and CSRF"): a login posted from another site's
 * page would sign the visitor's browser in as the attacker's account (login CSRF), so whatever
 * the visitor then enters lands in the attacker's account. A login a browser sends for another
 * site is refused like any cookie-authenticated write; same-origin pages, clients that send no
 * Origin (curl, the Python client) and origins allow_cors lists still log in.
 */

const HOST = 'fw.example';
const EVIL = 'https://evil.example';

for (const dialect of testDialects()) {
  describe(`login from another site's page is refused (${dialect.name})`, () => {
    let t: TestSite;
    let attacker: ActingUser;

    const sessionCount = async (): Promise<number> => {
      const b = t.site.db.dialect.builder;
      const rows = await t.site.db.read((q) =>
        q.all<{ user: string }>(b.selectFrom(SESSIONS_TABLE).select('user').where('user', '=', attacker.name).compile()),
      );
      return rows.length;
    };
    /** A login as the attacker, as a browser on `headers`' page would post it to HOST. */
    const post = (url: string, headers: Record<string, string>, form = false, app: TestSite['app'] = t.app): Promise<LightMyRequestResponse> =>
      app.inject({
        method: 'POST',
        url,
        remoteAddress: freshIp(),
        headers: { host: HOST, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
        payload: form
          ? `${url === '/' ? 'cmd=login&' : ''}usr=${encodeURIComponent(attacker.name)}&pwd=${encodeURIComponent(USER_PASSWORD)}`
          : { usr: attacker.name, pwd: USER_PASSWORD },
      });
    const refusedAndNoSession = async (res: LightMyRequestResponse, sessions: number, v2 = false) => {
      if (v2) assertV2Error(res, 400, 'CSRFTokenError');
      else assertError(res, 400, 'CSRFTokenError');
      assert.equal(sidOf(res), undefined, 'no session cookie was set');
      assert.equal(await sessionCount(), sessions, 'no session was created');
    };

    before(async () => {
      t = await startTestSite(dialect);
      attacker = await createUser(t, `attacker-${Date.now()}@example.com`);
    });
    after(() => t.close());

    test("a login from another origin, an opaque origin, another site's Referer or a cross-site fetch is refused: no cookie, no session", async () => {
      const sessions = await sessionCount();
      for (const headers of <Record<string, string>[]>[
        { origin: EVIL },
        { origin: 'null' },
        { origin: `http://sub.${HOST}` },
        { referer: `${EVIL}/login.html` },
        { 'sec-fetch-site': 'cross-site' },
      ]) {
        for (const url of ['/api/method/login', '/api/v1/method/login', '/api/v2/method/login', '/api/method/frappe.auth.login']) {
          const res = await post(url, headers);
          if (res.statusCode === 404) continue; // a path that does not name login at all
          await refusedAndNoSession(res, sessions, url.startsWith('/api/v2/'));
        }
        await refusedAndNoSession(await post('/api/method/login', headers, true), sessions);
        await refusedAndNoSession(await post('/', headers, true), sessions);
      }
    });

    test("a refused login leaves the visitor's own session signed in as it was", async () => {
      const own = await createUser(t, `visitor-${Date.now()}@example.com`);
      const ownLogin = await post('/api/method/login', {}, false);
      assert.equal(ownLogin.statusCode, 200);
      const visitor = await t.app.inject({
        method: 'POST',
        url: '/api/method/login',
        remoteAddress: freshIp(),
        payload: { usr: own.name, pwd: USER_PASSWORD },
      });
      const sid = sidOf(visitor);
      assert.ok(sid);
      const forged = await post('/api/method/login', { origin: EVIL, cookie: `sid=${sid}` }, true);
      assertError(forged, 400, 'CSRFTokenError');
      assert.equal(sidOf(forged), undefined);
      assert.equal(await whoIs(t.app, { cookie: `sid=${sid}` }), own.name);
    });

    test("the site's own page, clients without Origin (curl, the Python client) and same-origin fetches log in", async () => {
      for (const headers of <Record<string, string>[]>[
        {},
        { origin: `https://${HOST}` },
        { origin: `http://${HOST}` },
        { referer: `http://${HOST}/login` },
        { 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'none' },
      ]) {
        const res = await post('/api/method/login', headers);
        assert.equal(res.statusCode, 200, `${JSON.stringify(headers)}: ${res.body}`);
        assert.ok(sidOf(res), 'a session cookie was set');
      }
      const form = await post('/', {}, true);
      assert.equal(form.statusCode, 200, form.body);
    });

    test('an origin allow_cors lists logs in; "*" lists none', async () => {
      const listed = await reopenWithConfig(t, { allow_cors: ['https://partner.example'] });
      const any = await reopenWithConfig(t, { allow_cors: '*' });
      try {
        const ok = await post('/api/method/login', { origin: 'https://partner.example' }, false, listed.app);
        assert.equal(ok.statusCode, 200, ok.body);
        assert.ok(sidOf(ok));
        const sessions = await sessionCount();
        await refusedAndNoSession(await post('/api/method/login', { origin: EVIL }, false, listed.app), sessions);
        await refusedAndNoSession(await post('/api/method/login', { origin: EVIL }, false, any.app), sessions);
      } finally {
        await listed.close();
        await any.close();
      }
    });
  });
}
