import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { testDialects } from '../helpers/dialects.js';
import { assertV1Error } from '../helpers/error-envelope.js';
import { ADMIN_PASSWORD, startTestSite, type TestRequest, type TestSite } from '../helpers/test-site.js';

/*
 * Failed logins are budgeted: every suite below makes fewer than ten, so a login throttle with the
 * default settings (API.md "Authentication": 10 failures per 60 s per user or IP) never turns a
 * later answer into a 429.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const READABLE_LOGIN_COOKIES = ['user_id', 'full_name', 'system_user', 'user_image'] as const;

type Cookie = LightMyRequestResponse['cookies'][number] & { maxAge?: number; expires?: Date; sameSite?: string };

function cookie(res: LightMyRequestResponse, name: string): Cookie | undefined {
  return (res.cookies as Cookie[]).find((c) => c.name === name);
}

/** True when a Set-Cookie asks the browser to drop the cookie now. */
function isExpired(c: Cookie | undefined): boolean {
  if (!c) return false;
  return c.value === '' && ((c.maxAge !== undefined && c.maxAge <= 0) || (c.expires !== undefined && c.expires.getTime() <= Date.now()));
}

/** Headers that present only a session cookie (no Authorization). */
function withSid(sid: string): Record<string, string> {
  return { cookie: `sid=${sid}` };
}

async function loginJson(t: TestSite, usr: string, pwd: string): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/api/method/login', body: { usr, pwd }, anonymous: true });
}

async function sessionOf(t: TestSite): Promise<string> {
  const res = await loginJson(t, 'Administrator', ADMIN_PASSWORD);
  assert.equal(res.statusCode, 200, res.body);
  const sid = cookie(res, 'sid')?.value;
  assert.ok(sid && sid !== 'Guest', 'login sets a real sid');
  return sid;
}

async function loggedUser(t: TestSite, headers: Record<string, string>, path = 'fw.auth.get_logged_user') {
  return t.request({ method: 'GET', url: `/api/method/${path}`, anonymous: true, headers });
}

/** A generate_keys call made with a session cookie, so it does not depend on a token. */
async function generateKeys(t: TestSite, sid: string): Promise<{ api_key: string; api_secret: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/api/method/fw.core.doctype.user.user.generate_keys',
    body: { user: 'Administrator' },
    anonymous: true,
    headers: withSid(sid),
  });
  assert.equal(res.statusCode, 200, res.body);
  const keys = res.json().message as { api_key: string; api_secret: string };
  assert.equal(typeof keys.api_key, 'string');
  assert.equal(typeof keys.api_secret, 'string');
  return keys;
}

for (const dialect of testDialects()) {
  describe(`password login (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    const successes: readonly { name: string; request: TestRequest }[] = [
      {
        name: 'a JSON login by user name',
        request: { method: 'POST', url: '/api/method/login', body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } },
      },
      {
        name: 'a JSON login by email',
        request: { method: 'POST', url: '/api/method/login', body: { usr: 'admin@example.com', pwd: ADMIN_PASSWORD } },
      },
      {
        name: 'a form-encoded login by user name',
        request: {
          method: 'POST',
          url: '/api/method/login',
          body: `usr=Administrator&pwd=${encodeURIComponent(ADMIN_PASSWORD)}`,
          headers: FORM,
        },
      },
      {
        name: 'a form-encoded login by email',
        request: {
          method: 'POST',
          url: '/api/method/login',
          body: `usr=${encodeURIComponent('admin@example.com')}&pwd=${encodeURIComponent(ADMIN_PASSWORD)}`,
          headers: FORM,
        },
      },
      {
        name: 'a JSON login under the /api/v1 prefix',
        request: { method: 'POST', url: '/api/v1/method/login', body: { usr: 'Administrator', pwd: ADMIN_PASSWORD } },
      },
    ];

    for (const s of successes) {
      test(`${s.name} answers Logged In and sets the session cookies`, async () => {
        const res = await t.request({ ...s.request, anonymous: true });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { message: 'Logged In', home_page: '/app', full_name: 'Administrator' });

        const sid = cookie(res, 'sid');
        assert.ok(sid && sid.value !== '' && sid.value !== 'Guest', 'sid is set');
        assert.equal(sid.httpOnly, true, 'sid is HttpOnly');
        assert.equal(sid.sameSite?.toLowerCase(), 'lax');
        assert.equal(sid.path, '/');
        assert.equal(sid.maxAge, t.site.config.session_expiry, 'Max-Age is the session expiry');
        assert.ok(!sid.secure, 'plain http does not mark the cookie Secure');

        for (const name of READABLE_LOGIN_COOKIES) {
          const c = cookie(res, name);
          assert.ok(c, `${name} is set`);
          assert.ok(!c.httpOnly, `${name} is readable by scripts`);
          assert.equal(c.path, '/');
        }
        assert.equal(cookie(res, 'user_id')?.value, 'Administrator');
        assert.equal(cookie(res, 'full_name')?.value, 'Administrator');
        assert.equal(cookie(res, 'system_user')?.value, 'yes');
      });
    }

    test('the session cookie authenticates get_logged_user under fw. and frappe.', async () => {
      const sid = await sessionOf(t);
      for (const path of ['fw.auth.get_logged_user', 'frappe.auth.get_logged_user']) {
        const res = await loggedUser(t, withSid(sid), path);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { message: 'Administrator' });
      }
      const v2 = await t.request({ method: 'GET', url: '/api/v2/method/fw.auth.get_logged_user', anonymous: true, headers: withSid(sid) });
      assert.deepEqual(v2.json(), { data: 'Administrator' });
    });

    test('two logins make two independent sessions', async () => {
      const first = await sessionOf(t);
      const second = await sessionOf(t);
      assert.notEqual(first, second);
      for (const sid of [first, second]) assert.equal((await loggedUser(t, withSid(sid))).statusCode, 200);
    });

    test('a wrong password is a 401 with "Invalid login credentials" and expires the cookies', async () => {
      const res = await loginJson(t, 'Administrator', `${ADMIN_PASSWORD}-wrong`);
      const { body } = assertV1Error(res, 401, 'AuthenticationError');
      assert.equal(body.message, 'Invalid login credentials');
      assert.ok(isExpired(cookie(res, 'sid')), 'the sid cookie is expired');
      for (const name of READABLE_LOGIN_COOKIES) assert.ok(isExpired(cookie(res, name)), `${name} is expired`);
    });

    test('an unknown user is a 401 with the same message as a wrong password', async () => {
      const res = await loginJson(t, 'nobody@example.com', ADMIN_PASSWORD);
      const { body } = assertV1Error(res, 401, 'AuthenticationError');
      assert.equal(body.message, 'Invalid login credentials');
    });

    const incomplete: readonly { name: string; body: Record<string, unknown> | string; headers?: Record<string, string> }[] = [
      { name: 'a missing pwd', body: { usr: 'Administrator' } },
      { name: 'an empty pwd in a form body', body: 'usr=Administrator&pwd=', headers: FORM },
      { name: 'a missing usr', body: { pwd: ADMIN_PASSWORD } },
    ];
    for (const c of incomplete) {
      test(`${c.name} is a 401 AuthenticationError and sets no session`, async () => {
        const res = await t.request({ method: 'POST', url: '/api/method/login', body: c.body, headers: c.headers, anonymous: true });
        assertV1Error(res, 401, 'AuthenticationError');
        const sid = cookie(res, 'sid');
        assert.ok(!sid || sid.value === '' || sid.value === 'Guest', 'no session cookie');
      });
    }

    test('a password of 513 characters is a 401, not a 500', async () => {
      const res = await loginJson(t, 'Administrator', 'p'.repeat(513));
      assertV1Error(res, 401, 'AuthenticationError');
    });
  });

  describe(`sessions and logout (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('POST logout ends the session: the old sid then acts as Guest', async () => {
      const sid = await sessionOf(t);
      const out = await t.request({ method: 'POST', url: '/api/method/logout', body: {}, anonymous: true, headers: withSid(sid) });
      assert.equal(out.statusCode, 200, out.body);
      assert.deepEqual(out.json(), {});
      assert.ok(isExpired(cookie(out, 'sid')), 'logout expires the sid cookie');

      assertV1Error(await loggedUser(t, withSid(sid)), 403, 'PermissionError');
      assertV1Error(await t.request({ method: 'GET', url: '/api/resource/ToDo', anonymous: true, headers: withSid(sid) }), 403, 'PermissionError');
    });

    test('logout ends only its own session', async () => {
      const kept = await sessionOf(t);
      const ended = await sessionOf(t);
      await t.request({ method: 'POST', url: '/api/method/logout', body: {}, anonymous: true, headers: withSid(ended) });
      assert.equal((await loggedUser(t, withSid(ended))).statusCode, 403);
      assert.deepEqual((await loggedUser(t, withSid(kept))).json(), { message: 'Administrator' });
    });

    test('GET on logout is a 403 (verb not allowed) and leaves the session alive', async () => {
      const sid = await sessionOf(t);
      const res = await t.request({ method: 'GET', url: '/api/method/logout', anonymous: true, headers: withSid(sid) });
      assertV1Error(res, 403, 'PermissionError');
      assert.deepEqual((await loggedUser(t, withSid(sid))).json(), { message: 'Administrator' });
    });

    test('logout without a session answers 200 as Guest', async () => {
      const res = await t.request({ method: 'POST', url: '/api/method/logout', body: {}, anonymous: true });
      assert.equal(res.statusCode, 200, res.body);
    });

    const unknownSids: readonly { name: string; sid: (real: string) => string }[] = [
      { name: 'an unknown sid', sid: () => randomBytes(28).toString('hex') },
      { name: 'a forged short sid', sid: () => 'forged' },
      { name: 'a tampered sid (last character changed)', sid: (real) => real.slice(0, -1) + (real.endsWith('0') ? '1' : '0') },
      { name: 'a sid of "Guest"', sid: () => 'Guest' },
      { name: 'a sid holding SQL', sid: () => encodeURIComponent("' or '1'='1") },
    ];
    for (const c of unknownSids) {
      test(`${c.name} makes a Guest request: 403 on resources, not 401`, async () => {
        const sid = c.sid(await sessionOf(t));
        const list = await t.request({ method: 'GET', url: '/api/resource/ToDo', anonymous: true, headers: withSid(sid) });
        assertV1Error(list, 403, 'PermissionError');
        assertV1Error(await loggedUser(t, withSid(sid)), 403, 'PermissionError');
        const ping = await t.request({ method: 'GET', url: '/api/method/ping', anonymous: true, headers: withSid(sid) });
        assert.deepEqual(ping.json(), { message: 'pong' });
      });
    }
  });

  describe(`API key authentication (${dialect.name})`, () => {
    let t: TestSite;
    let key: string;
    let secret: string;
    before(async () => {
      t = await startTestSite(dialect);
      [key, secret] = t.adminAuth.slice('token '.length).split(':');
    });
    after(() => t.close());

    const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

    const accepted: readonly { name: string; header: () => string }[] = [
      { name: 'token key:secret', header: () => `token ${key}:${secret}` },
      { name: 'a capitalised scheme name (Token key:secret)', header: () => `Token ${key}:${secret}` },
      { name: 'Basic base64(key:secret)', header: () => basic(`${key}:${secret}`) },
    ];
    for (const a of accepted) {
      test(`${a.name} authenticates without a session or cookie`, async () => {
        const res = await loggedUser(t, { authorization: a.header() });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { message: 'Administrator' });
        assert.equal(res.headers['set-cookie'], undefined, 'token auth is stateless');
      });
    }

    test('token auth answers under v2 too', async () => {
      const res = await t.request({
        method: 'GET',
        url: '/api/v2/method/frappe.auth.get_logged_user',
        headers: { authorization: `token ${key}:${secret}` },
        anonymous: true,
      });
      assert.deepEqual(res.json(), { data: 'Administrator' });
    });

    const refused: readonly { name: string; header: () => string; status: number; excType: string }[] = [
      { name: 'a wrong secret', header: () => `token ${key}:${secret}x`, status: 401, excType: 'AuthenticationError' },
      { name: 'an empty secret', header: () => `token ${key}:`, status: 401, excType: 'AuthenticationError' },
      { name: 'an unknown key', header: () => `token nosuchkey:${secret}`, status: 401, excType: 'AuthenticationError' },
      { name: 'Basic with a wrong secret', header: () => basic(`${key}:wrong`), status: 401, excType: 'AuthenticationError' },
      { name: 'Basic with bad base64', header: () => 'Basic %%%not-base64%%%', status: 400, excType: 'InvalidAuthorizationToken' },
      { name: 'token without a colon', header: () => `token ${key}${secret}`, status: 400, excType: 'InvalidAuthorizationHeader' },
      { name: 'a Bearer token nobody issued', header: () => 'Bearer x', status: 401, excType: 'AuthenticationError' },
      { name: 'an unknown scheme', header: () => `Digest ${key}:${secret}`, status: 401, excType: 'AuthenticationError' },
    ];
    for (const r of refused) {
      test(`${r.name} is a ${r.status} ${r.excType}`, async () => {
        const res = await loggedUser(t, { authorization: r.header() });
        assertV1Error(res, r.status, r.excType);
      });
    }

    test('a refused token is refused on a guest method too: credentials that were sent are checked', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/ping', anonymous: true, headers: { authorization: `token ${key}:wrong` } });
      assertV1Error(res, 401, 'AuthenticationError');
    });

    test('a header of three parts is ignored: the request is Guest, 403 on resources', async () => {
      const headers = { authorization: `token ${key} ${secret}` };
      const list = await t.request({ method: 'GET', url: '/api/resource/ToDo', anonymous: true, headers });
      assertV1Error(list, 403, 'PermissionError');
      assertV1Error(await loggedUser(t, headers), 403, 'PermissionError');
    });

    test('a valid token is honoured even when an unknown sid cookie comes with it', async () => {
      const headers = { authorization: `token ${key}:${secret}`, cookie: `sid=${randomBytes(28).toString('hex')}` };
      assert.deepEqual((await loggedUser(t, headers)).json(), { message: 'Administrator' });
    });

    test('GET on generate_keys is a 403 (verb not allowed)', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/fw.core.doctype.user.user.generate_keys?user=Administrator' });
      assertV1Error(res, 403, 'PermissionError');
    });

    test('Guest may not generate keys', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/method/frappe.core.doctype.user.user.generate_keys',
        body: { user: 'Administrator' },
        anonymous: true,
      });
      assertV1Error(res, 403, 'PermissionError');
    });

    test('generate_keys without a user is a 417 FrappeTypeError', async () => {
      const res = await t.request({ method: 'POST', url: '/api/method/fw.core.doctype.user.user.generate_keys', body: {} });
      assertV1Error(res, 417, 'FrappeTypeError');
    });

    test('Guest calling get_logged_user is a 403 PermissionError', async () => {
      assertV1Error(await loggedUser(t, {}), 403, 'PermissionError');
      assertV1Error(await loggedUser(t, {}, 'frappe.auth.get_logged_user'), 403, 'PermissionError');
    });
  });

  describe(`API key rotation (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    test('generate_keys again replaces the secret: the old one stops working, the new one works', async () => {
      const sid = await sessionOf(t);
      const first = await generateKeys(t, sid);
      const oldAuth = { authorization: `token ${first.api_key}:${first.api_secret}` };
      // Used once so that any token cache holds the old secret before it is rotated.
      assert.deepEqual((await loggedUser(t, oldAuth)).json(), { message: 'Administrator' });

      const second = await generateKeys(t, sid);
      assert.notEqual(second.api_secret, first.api_secret);
      const newAuth = { authorization: `token ${second.api_key}:${second.api_secret}` };
      assert.deepEqual((await loggedUser(t, newAuth)).json(), { message: 'Administrator' });

      // API.md allows a token cache of up to one second; wait it out with a real timer.
      await sleep(1100);
      assertV1Error(await loggedUser(t, oldAuth), 401, 'AuthenticationError');
      assert.deepEqual((await loggedUser(t, newAuth)).json(), { message: 'Administrator' });
    });

    test('generated secrets are long and distinct', async () => {
      const sid = await sessionOf(t);
      const secrets = new Set<string>();
      for (let i = 0; i < 3; i++) secrets.add((await generateKeys(t, sid)).api_secret);
      assert.equal(secrets.size, 3);
      // 128 bits of randomness need at least 22 base64 or 32 hex characters.
      for (const s of secrets) assert.ok(s.length >= 22, `secret ${s.length} characters long`);
    });
  });

  describe(`ping (${dialect.name})`, () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite(dialect);
    });
    after(() => t.close());

    const pings: readonly { request: TestRequest; body: unknown }[] = [
      { request: { method: 'GET', url: '/api/method/ping' }, body: { message: 'pong' } },
      { request: { method: 'GET', url: '/api/method/frappe.ping' }, body: { message: 'pong' } },
      { request: { method: 'GET', url: '/api/method/fw.ping' }, body: { message: 'pong' } },
      { request: { method: 'POST', url: '/api/method/ping', body: {} }, body: { message: 'pong' } },
      { request: { method: 'GET', url: '/api/v1/method/ping' }, body: { message: 'pong' } },
      { request: { method: 'GET', url: '/api/v2/method/ping' }, body: { data: 'pong' } },
      { request: { method: 'GET', url: '/?cmd=ping' }, body: { message: 'pong' } },
      { request: { method: 'GET', url: '/?cmd=frappe.ping' }, body: { message: 'pong' } },
      { request: { method: 'POST', url: '/', body: { cmd: 'ping' } }, body: { message: 'pong' } },
    ];
    for (const p of pings) {
      test(`Guest ${p.request.method} ${p.request.url} answers pong`, async () => {
        const res = await t.request({ ...p.request, anonymous: true });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), p.body);
      });
    }

    test('a cmd field routes only at the root path, never hijacking another route', async () => {
      const res = await t.request({ method: 'GET', url: '/api/method/fw.auth.get_logged_user?cmd=ping', anonymous: true });
      assertV1Error(res, 403, 'PermissionError');
    });
  });
}
